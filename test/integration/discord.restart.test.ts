/** End to end: a pending approval survives a gateway restart; the original card's button completes the turn. */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { DiscordHarness } from '../fakes/fake-discord-harness.js';
import { waitFor } from './agent.harness.js';

describe('discord restart', () => {
  let h: DiscordHarness;
  before(async () => {
    h = await DiscordHarness.start();
  });
  after(async () => {
    await h.close();
  });

  it('completes the turn when the original card is approved after a restart', async () => {
    const { user } = await h.linkedUser('400000000000000021', 'carol');
    h.llm.enqueue({
      toolCalls: [{ id: 'call_r1', name: 'bash', arguments: JSON.stringify({ command: 'echo survived-restart' }) }],
    });
    const { threadId } = await h.mention(user, 'run it after the restart');
    const card = await h.fake.waitFor(() => h.cards(threadId)[0], 20_000, 'approval card');
    const approve = h.button(card, 'Approve') ?? '';
    // The card is posted before its location is written to the approval row: wait for the write.
    const row = await waitFor(
      async () => (await h.db.stores.approvals.listPending()).find((pending) => Boolean(pending.messageId)),
      'card location on the approval row',
    );
    assert.equal(row?.messageId, card.id, 'the card location is recorded on the approval row');

    await h.crash();
    assert.equal(h.fake.gateway.connected, 0);
    await h.boot();
    await h.fake.waitFor(() => h.fake.gateway.connected === 1, 15_000, 'reconnect');
    assert.equal(h.llm.requests.length, 1, 'nothing ran before the click');

    h.llm.enqueue({ text: 'It printed survived-restart.' });
    const click = h.fake.state.clickButton(card.id, approve, user);
    assert.equal(
      await h.fake.waitFor(() => h.fake.state.interactions.get(click.id)?.reply, 15_000, 'reply'),
      'Approved.',
    );
    await h.fake.waitFor(
      () => h.textMessages(threadId).find((m) => m.content === 'It printed survived-restart.'),
      20_000,
      'answer',
    );
    assert.match(JSON.stringify(h.llm.requests[1]?.body), /survived-restart/);
    assert.equal(card.components.length, 0);
    assert.match(JSON.stringify(card.embeds), /bash/, 'the edited card still lists the call');
    assert.match(JSON.stringify(card.embeds), /Approved/);
    assert.equal(h.llm.requests.length, 2, 'the stored call ran exactly once');
  });

  it('a stop while only the usage is still streaming keeps the shown answer: the restart neither notes it nor answers again', async () => {
    const { user } = await h.linkedUser('400000000000000023', 'erin');
    // 400 ms between frames: the finish-reason chunk, then the usage chunk, then the stream's end.
    h.llm.enqueue({ text: 'Complete before the usage.', delayMs: 400 });
    const { threadId } = await h.mention(user, 'answer slowly');
    const answer = await h.fake.waitFor(
      () =>
        h.textMessages(threadId).find((m) => m.content === 'Complete before the usage.' && m.components.length === 0),
      20_000,
      'final answer',
    );
    assert.equal(h.llm.requests.at(-1)?.finished, false, 'the answer is final while the usage is still to come');
    await h.crash();
    await h.boot();
    await h.fake.waitFor(() => h.fake.gateway.connected === 1, 15_000, 'reconnect');
    h.llm.enqueue({ text: 'Still here.' });
    h.fake.state.injectMessage(threadId, user, 'and now?');
    await h.fake.waitFor(
      () => h.textMessages(threadId).find((m) => m.content === 'Still here.'),
      20_000,
      'follow-up answer',
    );
    assert.equal(
      h.botMessages(threadId).filter((m) => m.content.includes('Interrupted')).length,
      0,
      'no interruption note',
    );
    assert.equal(h.fake.state.messages.get(answer.id)?.content, 'Complete before the usage.');
    const followUp = JSON.stringify(h.llm.requests.at(-1)?.body);
    assert.equal(followUp.split('Complete before the usage.').length - 1, 1, 'the stored history has the answer once');
    assert.equal(
      h.llm.requests.filter((request) => JSON.stringify(request.body).includes('answer slowly')).length,
      2,
      'the first message was not answered again',
    );
  });

  it('routes a follow-up in an existing thread to the restored workstream after a restart', async () => {
    const { user } = await h.linkedUser('400000000000000022', 'dave');
    h.llm.enqueue({ text: 'First answer.' });
    const { threadId } = await h.mention(user, 'remember the word heron');
    await h.fake.waitFor(
      () => h.textMessages(threadId).find((m) => m.content === 'First answer.'),
      20_000,
      'first answer',
    );
    await h.crash();
    await h.boot();
    await h.fake.waitFor(() => h.fake.gateway.connected === 1, 15_000, 'reconnect');
    h.llm.enqueue({ text: 'You said heron.' });
    h.fake.state.injectMessage(threadId, user, 'what word did I say?');
    await h.fake.waitFor(
      () => h.textMessages(threadId).find((m) => m.content === 'You said heron.'),
      20_000,
      'follow-up answer',
    );
    assert.match(JSON.stringify(h.llm.requests.at(-1)?.body), /heron/);
  });
});
