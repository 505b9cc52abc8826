/** End to end: a follow-up that races its thread's creation is answered in order; a thread whose workstream was deleted keeps working. */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { CHANNEL_ID, DiscordHarness } from '../fakes/fake-discord-harness.js';

describe('discord thread lifecycle', () => {
  let h: DiscordHarness;
  before(async () => {
    h = await DiscordHarness.start();
  });
  after(async () => {
    await h.close();
  });

  it('answers a message written while its thread is still being set up, after the first one', async () => {
    const { user } = await h.linkedUser('400000000000000081', 'fay');
    h.llm.enqueue({ text: 'First answer.' }, { text: 'Second answer.' });
    const mention = h.fake.state.injectMessage(CHANNEL_ID, user, 'first question', true);
    // The thread exists on Discord before the gateway has routed it: write into it at once.
    await h.fake.waitFor(() => h.fake.state.channels.get(mention.id), 15_000, 'thread created');
    h.fake.state.injectMessage(mention.id, user, 'second question');
    await h.fake.waitFor(
      () => h.textMessages(mention.id).find((m) => m.content === 'Second answer.'),
      20_000,
      'second answer',
    );
    assert.deepEqual(
      h.textMessages(mention.id).map((m) => m.content),
      ['First answer.', 'Second answer.'],
    );
    const last = JSON.stringify(h.llm.requests.at(-1)?.body);
    assert.ok(
      last.indexOf('first question') < last.indexOf('second question'),
      'the follow-up came after the first message',
    );
  });

  it('routes a thread whose workstream row was deleted to a new workstream and says so', async () => {
    const { user } = await h.linkedUser('400000000000000082', 'gus');
    h.llm.enqueue({ text: 'Hello there.' });
    const { threadId } = await h.mention(user, 'hello');
    await h.fake.waitFor(
      () => h.textMessages(threadId).find((m) => m.content === 'Hello there.'),
      20_000,
      'first answer',
    );
    const oldRoute = await h.db.stores.routes.getRoute('discord', threadId);
    await h.crash();
    await h.db.stores.approvals.cancelPending(oldRoute?.wsId ?? '');
    assert.equal(await h.db.stores.workstreams.delete(oldRoute?.wsId ?? ''), true);
    await h.boot();
    await h.fake.waitFor(() => h.fake.gateway.connected === 1, 15_000, 'reconnect');

    h.llm.enqueue({ text: 'Fresh start.' });
    h.fake.state.injectMessage(threadId, user, 'are you still there?');
    await h.fake.waitFor(
      () => h.textMessages(threadId).find((m) => m.content === 'Fresh start.'),
      20_000,
      'answer from the new workstream',
    );
    assert.ok(h.textMessages(threadId).some((m) => m.content === '*Workstream reactivated.*'));
    assert.ok(!h.textMessages(threadId).some((m) => m.content === '*Workstream closed.*'));
    const route = await h.db.stores.routes.getRoute('discord', threadId);
    assert.ok(route && route.wsId !== oldRoute?.wsId, 'the thread now routes to a new workstream');
  });
});
