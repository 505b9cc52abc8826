/** End to end over bolt and the fake Slack: a watch result and the answer it starts appear in the workstream's thread. */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { SlackHarness } from '../fakes/fake-slack-harness.js';

describe('slack watch', () => {
  let h: SlackHarness;
  before(async () => {
    // Idle for a moment is enough to be evicted, so the delivery below has to restore the workstream.
    h = await SlackHarness.start({ flags: { 'agent.idle_evict_minutes': 0.0001 } });
  });
  after(async () => {
    await h.close();
  });

  it('delivers a due watch into its thread, restoring the evicted workstream, result first and then the answer', async () => {
    const { user, userId } = await h.linkedUser('U0WATCH', 'wanda');
    h.llm.enqueue({ text: 'Hi.' });
    const { threadTs } = h.mention(user, 'hello');
    await h.fake.waitFor(() => h.textReplies(threadTs).find((m) => m.text === 'Hi.'), 20_000, 'first answer');
    const [workstream] = await h.db.stores.workstreams.list({ userId });
    const wsId = workstream?.wsId ?? '';
    assert.ok(wsId);
    await h.db.stores.watches.create({
      watchId: 'slack-watch-1',
      wsId,
      name: 'queue',
      command: 'echo queue-depth: 0',
      intervalSecs: 60,
      stopOn: '"depth: 0" in output',
      maxPolls: 10,
      nextPoll: '2020-01-01T00:00:00',
    });
    // Nothing keeps it in memory: the delivery has to restore it.
    let evicted = 0;
    for (let attempt = 0; evicted === 0 && attempt < 200; attempt++) {
      await new Promise((resolve) => setTimeout(resolve, 10));
      evicted = await h.runtime.manager.evictIdle();
    }
    assert.equal(evicted, 1);
    h.llm.enqueue({ text: 'The queue is empty now.' });
    assert.equal(await h.watchRunner.tick(), 1);
    const answer = await h.fake.waitFor(
      () => h.textReplies(threadTs).find((m) => m.text === 'The queue is empty now.'),
      20_000,
      'answer to the watch',
    );
    const replies = h.botReplies(threadTs);
    const result = replies.find(
      (m) => JSON.stringify(m).includes('queue-depth: 0') && JSON.stringify(m).includes('poll #1/10'),
    );
    assert.ok(result, 'the watch result is posted in the thread');
    assert.ok(replies.indexOf(result) < replies.indexOf(answer), 'before the answer');
    assert.match(JSON.stringify(h.llm.requests.at(-1)?.body), /queue-depth: 0/);
  });
});
