/** End to end: an approval card ends showing the true outcome when the owner cancels or closes around a click. */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DiscordHarness } from '../fakes/fake-discord-harness.js';
import type { FakeMessage, FakeUser } from '../fakes/fake-discord.js';

const touch = (id: string, file: string) => ({
  toolCalls: [{ id, name: 'bash', arguments: JSON.stringify({ command: `echo ran > ${file}` }) }],
});

describe('discord approvals racing cancel and close', () => {
  let h: DiscordHarness;
  let alice: FakeUser;
  let dir: string;
  before(async () => {
    h = await DiscordHarness.start();
    alice = (await h.linkedUser('400000000000000071', 'alice')).user;
    dir = mkdtempSync(join(tmpdir(), 'sandpiper-race-'));
  });
  after(async () => {
    await h.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const reply = (interactionId: string) => () => h.fake.state.interactions.get(interactionId)?.reply;
  const decided = (card: FakeMessage) => () =>
    card.components.length === 0 && /— (Approved|Cancelled|Rejected)/.test(JSON.stringify(card.embeds));

  it('shows "Cancelled" (not "Rejected") after /cancel, and a late click runs nothing', async () => {
    const file = join(dir, 'cancel-first');
    h.llm.enqueue(touch('call_x1', file));
    const { threadId } = await h.mention(alice, 'write the file');
    const card = await h.fake.waitFor(() => h.cards(threadId)[0], 20_000, 'approval card');
    const approve = h.button(card, 'Approve') ?? '';
    const cancel = h.fake.state.slashCommand('cancel', threadId, alice);
    assert.match(await h.fake.waitFor(reply(cancel.id), 15_000, 'cancel reply'), /Cancelling/);
    await h.fake.waitFor(decided(card), 15_000, 'card decided');
    assert.match(JSON.stringify(card.embeds), /Cancelled/);
    assert.doesNotMatch(JSON.stringify(card.embeds), /Rejected/);

    const click = h.fake.state.clickButton(card.id, approve, alice);
    assert.match(await h.fake.waitFor(reply(click.id), 15_000, 'late click reply'), /already decided \(cancelled\)/);
    assert.equal(existsSync(file), false, 'nothing ran');
    assert.equal(h.llm.requests.length, 1);
    assert.match(JSON.stringify(card.embeds), /Cancelled/);
  });

  it('takes the buttons off a pending card when the owner closes the workstream', async () => {
    const file = join(dir, 'close-pending');
    h.llm.enqueue(touch('call_y1', file));
    const { threadId } = await h.mention(alice, 'write it, then I close');
    const card = await h.fake.waitFor(() => h.cards(threadId)[0], 20_000, 'approval card');
    const approve = h.button(card, 'Approve') ?? '';
    const close = h.fake.state.slashCommand('close', threadId, alice);
    assert.equal(await h.fake.waitFor(reply(close.id), 15_000, 'close reply'), 'Workstream closed.');
    await h.fake.waitFor(decided(card), 15_000, 'card decided');
    assert.match(JSON.stringify(card.embeds), /Cancelled/);
    const click = h.fake.state.clickButton(card.id, approve, alice);
    assert.match(await h.fake.waitFor(reply(click.id), 15_000, 'late click reply'), /already decided \(cancelled\)/);
    assert.equal(existsSync(file), false, 'nothing ran');
  });

  for (const command of ['cancel', 'close'] as const) {
    it(`keeps card and effects consistent when a click and /${command} arrive together`, async () => {
      for (let round = 0; round < 3; round += 1) {
        const file = join(dir, `${command}-${round}`);
        h.llm.enqueue(touch(`call_${command}${round}`, file), { text: 'Written.' });
        const { threadId } = await h.mention(alice, `race ${command} ${round}`);
        const card = await h.fake.waitFor(() => h.cards(threadId)[0], 20_000, 'approval card');
        const click = h.fake.state.clickButton(card.id, h.button(card, 'Approve') ?? 'sp:approve:x', alice);
        const stop = h.fake.state.slashCommand(command, threadId, alice);
        await h.fake.waitFor(reply(click.id), 20_000, 'click reply');
        await h.fake.waitFor(reply(stop.id), 20_000, `${command} reply`);
        await h.fake.waitFor(decided(card), 20_000, 'card decided');
        // Let a turn that did get the decision finish what it started.
        await h.fake.waitFor(() => h.runtime.manager.stats().running === 0, 20_000, 'turn settled');
        const shown = JSON.stringify(card.embeds);
        if (existsSync(file)) {
          assert.match(shown, /Approved/, `round ${round}: the tool ran, so the card says Approved`);
        } else {
          assert.match(shown, /Cancelled/, `round ${round}: nothing ran, so the card says Cancelled`);
          assert.doesNotMatch(shown, /Approved/);
        }
        if (h.llm.pending > 0) {
          // The turn stopped before its last model call: use the scripted answer up in a new thread.
          const spare = await h.mention(alice, 'spare');
          await h.fake.waitFor(
            () => h.textMessages(spare.threadId).find((m) => m.content === 'Written.'),
            20_000,
            'leftover answer',
          );
        }
        assert.equal(h.llm.pending, 0, 'every scripted answer was used');
      }
    });
  }
});
