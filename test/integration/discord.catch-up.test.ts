/** End to end (discord.js ↔ fake Discord): what was written while the gateway was down is answered after start, once. */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { CHANNEL_ID, DiscordHarness } from '../fakes/fake-discord-harness.js';
import { answerByTag, answerCounts } from '../helpers/echo-answers.js';

describe('discord catch-up', () => {
  let h: DiscordHarness;
  before(async () => {
    h = await DiscordHarness.start();
    answerByTag(h.llm);
  });
  after(async () => {
    await h.close();
  });

  const answers = (threadId: string): Map<string, number> =>
    answerCounts(h.textMessages(threadId).map((m) => m.content));

  it('answers thread posts and mentions written while the gateway was down, once', async () => {
    const { user } = await h.linkedUser('400000000000000061', 'mia');
    const { threadId } = await h.mention(user, 'q-first remember the word osprey');
    await h.fake.waitFor(() => answers(threadId).get('q-first'), 20_000, 'first answer');

    await h.crash();
    // Written while down: no session delivers these; only the channel history has them.
    h.fake.state.injectMessage(threadId, user, 'q-missed-post what word did I say?');
    const mention = h.fake.state.injectMessage(CHANNEL_ID, user, 'q-missed-mention a new question', true);
    h.fake.state.injectMessage(CHANNEL_ID, user, 'q-chatter without a mention');
    const stranger = h.fake.user('400000000000000062', 'stranger');
    h.fake.state.injectMessage(threadId, stranger, 'q-stranger not the owner');

    await h.boot();
    await h.fake.waitFor(() => answers(threadId).get('q-missed-post'), 20_000, 'thread post answered after start');
    await h.fake.waitFor(() => h.fake.state.channels.get(mention.id), 20_000, 'thread opened from the missed mention');
    await h.fake.waitFor(
      () => answers(mention.id).get('q-missed-mention'),
      20_000,
      'mention answered in its new thread',
    );
    const turn = h.llm.requests.find((r) => JSON.stringify(r.body).includes('q-missed-post'));
    assert.match(JSON.stringify(turn?.body), /osprey/, 'the missed post joined the thread history');

    // A second restart fetches the same history again: the ledger starts nothing twice.
    const requests = h.llm.requests.length;
    const fetches = h.fake.requests.length;
    await h.crash();
    await h.boot();
    const fetched = (id: string): boolean =>
      h.fake.requests.slice(fetches).some((r) => r.method === 'GET' && r.path === `/channels/${id}/messages`);
    await h.fake.waitFor(
      () => fetched(threadId) && fetched(mention.id) && fetched(CHANNEL_ID),
      20_000,
      'catch-up fetches after the second restart',
    );
    // The fetches are done once the last conversation was read; give the handling a positive signal to wait for.
    await h.mention(user, 'q-after-restart');
    await h.fake.waitFor(
      () =>
        h.fake.state.channels.size > 0 &&
        [...h.fake.state.channels.keys()].some((id) => answers(id).get('q-after-restart')),
      20_000,
      'live answer',
    );
    assert.equal(h.llm.requests.length, requests + 1, 'only the new question reached the model');
    assert.equal(answers(threadId).get('q-missed-post'), 1);
    assert.equal(answers(mention.id).get('q-missed-mention'), 1);
    assert.equal(answers(threadId).get('q-stranger'), undefined, 'a stranger in an owner-only thread starts nothing');
    assert.deepEqual(h.fake.invalidBodies, [], 'every request matched the OpenAPI description');
  });

  it('does nothing with history when gateway.catch_up_hours is 0', async () => {
    const off = await DiscordHarness.start({ flags: { 'gateway.catch_up_hours': 0 } });
    try {
      answerByTag(off.llm);
      const { user } = await off.linkedUser('400000000000000063', 'noa');
      await off.crash();
      const missed = off.fake.state.injectMessage(CHANNEL_ID, user, 'q-ignored', true);
      await off.boot();
      const { threadId } = await off.mention(user, 'q-live');
      await off.fake.waitFor(
        () => answerCounts(off.textMessages(threadId).map((m) => m.content)).get('q-live'),
        20_000,
        'live answer',
      );
      assert.equal(
        off.fake.requests.filter((r) => r.method === 'GET' && r.path.endsWith('/messages')).length,
        0,
        'no history read',
      );
      assert.equal(off.fake.state.channels.get(missed.id), undefined, 'the missed mention stays unanswered');
    } finally {
      await off.close();
    }
  });
});
