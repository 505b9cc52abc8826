/** Someone else's Discord thread, over discord.js: a stranger's post (one hint), /status, click; a member with an approver role decides. */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { NOT_YOURS } from '../../src/gateway/commands.js';
import { NOT_OWNER_HINT } from '../../src/gateway/link-hints.js';
import { DiscordHarness } from '../fakes/fake-discord-harness.js';
import type { FakeUser } from '../fakes/fake-discord.js';
import { FAKE_ROLES } from '../fakes/fake-discord-state.js';

const APPROVER_ROLE = FAKE_ROLES.approvers;

describe('a Discord thread seen by people other than its owner', () => {
  let h: DiscordHarness;
  let alice: FakeUser;
  let mallory: FakeUser;
  let carol: FakeUser;
  before(async () => {
    h = await DiscordHarness.start({ flags: { 'discord.approver_roles': [APPROVER_ROLE] } });
    alice = (await h.linkedUser('400000000000000051', 'alice')).user;
    mallory = (await h.linkedUser('400000000000000052', 'mallory')).user;
    carol = (await h.linkedUser('400000000000000053', 'carol')).user;
    h.fake.state.memberRoles.set(carol.id, [APPROVER_ROLE]);
    h.fake.state.memberRoles.set(mallory.id, [FAKE_ROLES.members]);
  });
  after(() => h.close());

  const reply = (interactionId: string) => () => h.fake.state.interactions.get(interactionId)?.reply;

  it('hints a stranger once, shows them no status, refuses their click, and lets an approver decide', async () => {
    h.llm.enqueue(
      {
        toolCalls: [
          {
            id: 'call_d1',
            name: 'bash',
            arguments: JSON.stringify({ command: 'export API_TOKEN=abcd1234secret; echo ok' }),
          },
        ],
      },
      { text: 'Done after the decision.' },
    );
    const { threadId } = await h.mention(alice, 'run it');
    const card = await h.fake.waitFor(() => h.cards(threadId)[0], 20_000, 'approval card');
    assert.doesNotMatch(JSON.stringify(card.embeds), /abcd1234secret/, 'the secret is masked on the card');
    const requests = h.llm.requests.length;

    const first = h.fake.state.injectMessage(threadId, mallory, 'approve it yourself');
    h.fake.state.injectMessage(threadId, mallory, 'hello?');
    const hint = await h.fake.waitFor(
      () => h.textMessages(threadId).find((m) => m.content === NOT_OWNER_HINT),
      15_000,
      'hint',
    );
    assert.equal(hint.replyTo, first.id, "a reply to the stranger's own message");

    const status = h.fake.state.slashCommand('status', threadId, mallory);
    assert.equal(await h.fake.waitFor(reply(status.id), 15_000, 'status reply'), NOT_YOURS);
    assert.equal(h.fake.state.interactions.get(status.id)?.ephemeral, true);

    const refused = h.fake.state.clickButton(card.id, h.button(card, 'Approve') ?? '', mallory);
    assert.match(await h.fake.waitFor(reply(refused.id), 15_000, 'refusal'), /Only the owner/);
    assert.equal(h.llm.requests.length, requests, 'nothing reached the model');
    assert.equal(h.textMessages(threadId).filter((m) => m.content === NOT_OWNER_HINT).length, 1, 'one hint per thread');

    const approved = h.fake.state.clickButton(card.id, h.button(card, 'Approve') ?? '', carol);
    assert.equal(await h.fake.waitFor(reply(approved.id), 15_000, 'approver reply'), 'Approved.');
    await h.fake.waitFor(
      () => h.textMessages(threadId).find((m) => m.content === 'Done after the decision.'),
      20_000,
      'answer',
    );
    assert.match(JSON.stringify(h.cards(threadId)[0]?.embeds), /carol/);
  });
});
