/**
 * End to end: a mention's first turn starts while Discord opens its thread (ADR 0033). The model is asked at once,
 * nothing is shown or stored before the thread exists, and a thread that cannot be opened leaves nothing behind.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readdir } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import { MAX_OVERLAPPED_OPENINGS } from '../../src/gateway/conversation-start.js';
import { CHANNEL_ID, DiscordHarness } from '../fakes/fake-discord-harness.js';
import { waitFor } from './agent.harness.js';

const THREAD_PATH = /^\/channels\/\d+\/messages\/\d+\/threads$/;

describe('discord: the first turn while the thread opens', () => {
  let h: DiscordHarness;
  before(async () => {
    h = await DiscordHarness.start();
  });
  after(async () => {
    await h.close();
  });

  const folders = (): Promise<string[]> => readdir(h.config.agent.workspace_dir).catch(() => []);

  it('asks the model before the thread is open, and shows the answer in the thread once it is', async () => {
    const { user, userId } = await h.linkedUser('400000000000000181', 'ada');
    h.llm.enqueue({ text: 'Answered while the thread opened.' }, { text: 'Same conversation.' });
    h.fake.holdReply('POST', THREAD_PATH);
    const asked = h.llm.requests.length;
    const message = h.fake.state.injectMessage(CHANNEL_ID, user, 'start a conversation', true);
    await h.llm.waitFor((llm) => llm.requests.length > asked && llm.requests.at(-1)?.finished, 15_000);
    assert.equal(h.fake.heldCount, 1, 'the model answered while the thread was still being opened');
    assert.equal(h.botMessages(message.id).length, 0, 'nothing is shown before the thread exists');
    assert.equal(await h.db.stores.routes.getRoute('discord', message.id), undefined, 'the route is stored once the thread exists');

    h.fake.releaseHeld();
    await h.fake.waitFor(() => h.textMessages(message.id).find((m) => m.content === 'Answered while the thread opened.'), 20_000, 'answer in the thread');
    const route = await waitFor(() => h.db.stores.routes.getRoute('discord', message.id), 'stored route');
    assert.equal((await h.db.stores.workstreams.get(route.wsId))?.userId, userId);
    const history = await waitFor(async () => {
      const messages = await h.db.stores.conversations.load(route.wsId);
      return messages.length === 2 ? messages : undefined;
    }, 'stored history');
    assert.deepEqual(history.map((m) => m.role), ['user', 'assistant']);

    h.fake.state.injectMessage(message.id, user, 'and a follow-up');
    await h.fake.waitFor(() => h.textMessages(message.id).find((m) => m.content === 'Same conversation.'), 20_000, 'follow-up answer');
    assert.equal((await h.db.stores.workstreams.list({ userId })).length, 1, 'the follow-up went to the same workstream');
  });

  it('in a burst of new conversations, one beyond the limit of threads being opened waits for its thread before its turn', async () => {
    const count = MAX_OVERLAPPED_OPENINGS + 1;
    const users = await Promise.all(Array.from({ length: count }, (_, k) => h.linkedUser(String(400000000000000200n + BigInt(k)), `burst${k}`)));
    h.llm.fallback = () => ({ text: 'Burst answer.' });
    // discord.js sends one thread request of a channel at a time: holding the first reply keeps them all opening.
    h.fake.holdReply('POST', THREAD_PATH);
    const asked = h.llm.requests.length;
    const messages = users.map(({ user }, k) => h.fake.state.injectMessage(CHANNEL_ID, user, `burst ${k}`, true));
    await h.fake.waitFor(() => h.fake.heldCount === 1, 15_000, 'the first thread request');
    await h.llm.waitFor((llm) => llm.requests.length - asked >= MAX_OVERLAPPED_OPENINGS, 15_000);
    // Its request could only follow its thread; a short look confirms it did not go out meanwhile.
    await sleep(300);
    assert.equal(h.llm.requests.length - asked, MAX_OVERLAPPED_OPENINGS, 'the conversation beyond the limit waits for its thread');
    h.fake.releaseHeld();
    for (const message of messages) await h.fake.waitFor(() => h.textMessages(message.id).find((m) => m.content === 'Burst answer.'), 20_000, 'burst answer');
    assert.equal(h.llm.requests.length - asked, count);
    h.llm.fallback = undefined;
  });

  it('stores nothing, shows nothing in the thread and stops the turn when the thread cannot be opened', async () => {
    const { user, userId } = await h.linkedUser('400000000000000182', 'bo');
    const foldersBefore = await folders();
    h.llm.enqueue({ text: 'Never shown.', delayMs: 1000 });
    h.fake.refuse('POST', THREAD_PATH, 1);
    h.fake.holdReply('POST', THREAD_PATH);
    const asked = h.llm.requests.length;
    const message = h.fake.state.injectMessage(CHANNEL_ID, user, 'no permission here', true);
    const request = await h.llm.waitFor((llm) => llm.requests.length > asked && llm.requests.at(-1), 15_000);
    await h.fake.waitFor(() => h.fake.heldCount === 1, 15_000, 'the thread request');
    h.fake.releaseHeld();
    await h.fake.waitFor(
      () => h.botMessages(CHANNEL_ID).find((m) => m.content.includes('could not be handled') && m.createdAt >= message.createdAt),
      15_000,
      'error notice in the channel',
    );
    await h.llm.waitFor(() => request.clientClosed, 15_000);
    assert.equal(request.finished, false, 'the model call was cancelled, not read to its end');
    assert.deepEqual(await h.db.stores.workstreams.list({ userId }), [], 'no workstream row');
    assert.equal(await h.db.stores.routes.getRoute('discord', message.id), undefined, 'no route');
    await waitFor(async () => (await folders()).length === foldersBefore.length, 'the folder of the dropped workstream removed');
    assert.equal(h.botMessages(message.id).length, 0);
  });
});
