/** End to end on Slack: `/sandpiper cancel` with nothing running, and reactivated threads keeping their owner. */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { CHANNEL, SlackHarness } from '../fakes/fake-slack-harness.js';
import type { FakeSlackUser } from '../fakes/fake-slack.js';

describe('slack loose ends', () => {
  let h: SlackHarness;
  let alice: FakeSlackUser;
  let aliceId: string;
  let bob: FakeSlackUser;
  before(async () => {
    h = await SlackHarness.start();
    ({ user: alice, userId: aliceId } = await h.linkedUser('U0ALICE', 'alice'));
    bob = (await h.linkedUser('U0BOB', 'bob')).user;
  });
  after(async () => {
    await h.close();
  });

  const nextReply = (user: FakeSlackUser, count: number) =>
    h.fake.waitFor(() => h.fake.state.privateTo(user.id)[count], 15_000, 'private answer');

  /** Alice opens a thread and waits for the answer. */
  async function thread(question: string, answer: string): Promise<{ threadTs: string; wsId: string }> {
    h.llm.enqueue({ text: answer });
    const { threadTs } = h.mention(alice, question);
    await h.fake.waitFor(() => h.textReplies(threadTs).find((m) => m.text === answer), 20_000, 'answer');
    const wsId = (await h.db.stores.routes.getRoute('slack', `${CHANNEL}:${threadTs}`))?.wsId ?? '';
    return { threadTs, wsId };
  }

  it('answers cancel with "Nothing is running." when no turn runs', async () => {
    const { threadTs } = await thread('quick one', 'Quick answer.');
    const seen = h.fake.state.privateTo(alice.id).length;
    h.fake.slashCommand(alice, CHANNEL, 'cancel');
    assert.equal(await nextReply(alice, seen), 'Nothing is running.');
    assert.ok(!h.textReplies(threadTs).some((m) => m.text === '_Cancelled._'), 'no cancelled notice');
  });

  it('reactivates a thread whose workstream was deleted only for its original owner, who keeps it', async () => {
    const { threadTs, wsId } = await thread('keep my thread', 'Kept.');
    const channelId = `${CHANNEL}:${threadTs}`;
    await h.gateway.stop();
    await h.runtime.close();
    await h.db.stores.approvals.cancelPending(wsId);
    assert.equal(await h.db.stores.workstreams.delete(wsId), true);
    await h.boot();

    // Only owners write to Slack threads: bob's message changes nothing.
    const before = h.botReplies(threadTs).length;
    const { message: fromBob } = h.fake.userMessage(bob, CHANNEL, 'is anyone here?', threadTs);
    h.llm.enqueue({ text: 'Fresh start.' });
    h.fake.userMessage(alice, CHANNEL, 'I am back', threadTs);
    await h.fake.waitFor(
      () => h.textReplies(threadTs).find((m) => m.text === 'Fresh start.'),
      20_000,
      'answer from the new workstream',
    );
    const route = await h.db.stores.routes.getRoute('slack', channelId);
    assert.ok(route && route.wsId !== wsId, 'the thread routes to a new workstream');
    assert.equal(route.ownerUserId, aliceId);
    assert.equal((await h.db.stores.workstreams.get(route.wsId))?.userId, aliceId, 'alice owns the new workstream');
    const sent = JSON.stringify(h.llm.requests.at(-1)?.body);
    assert.ok(sent.includes('I am back') && !sent.includes(fromBob.text), "only the owner's message reached the model");
    assert.equal(
      h
        .botReplies(threadTs)
        .slice(before)
        .filter((m) => /reactivated/i.test(m.text)).length,
      1,
      'reactivated once',
    );
  });
});
