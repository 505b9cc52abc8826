/**
 * End to end: a mention opens its thread first, then its workstream and route are created and the model is asked;
 * a thread that cannot be opened leaves nothing behind, and a burst of mentions each gets its own conversation.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readdir } from 'node:fs/promises';
import { CHANNEL_ID, DiscordHarness } from '../fakes/fake-discord-harness.js';
import { waitFor } from './agent.harness.js';

const THREAD_PATH = /^\/channels\/\d+\/messages\/\d+\/threads$/;

describe('discord: a new conversation opens its thread, then starts its turn', () => {
  let h: DiscordHarness;
  before(async () => {
    h = await DiscordHarness.start();
  });
  after(async () => {
    await h.close();
  });

  const folders = (): Promise<string[]> => readdir(h.config.agent.workspace_dir).catch(() => []);

  it('asks the model once the thread is open, and answers in it', async () => {
    const { user, userId } = await h.linkedUser('400000000000000181', 'ada');
    h.llm.enqueue({ text: 'Answered in the new thread.' }, { text: 'Same conversation.' });
    h.fake.holdReply('POST', THREAD_PATH);
    const asked = h.llm.requests.length;
    const message = h.fake.state.injectMessage(CHANNEL_ID, user, 'start a conversation', true);
    await h.fake.waitFor(() => h.fake.heldCount === 1, 15_000, 'the thread request');
    assert.equal(
      await h.db.stores.routes.getRoute('discord', message.id),
      undefined,
      'no route before the thread exists',
    );
    h.fake.releaseHeld();
    await h.fake.waitFor(
      () => h.textMessages(message.id).find((m) => m.content === 'Answered in the new thread.'),
      20_000,
      'answer in the thread',
    );
    assert.equal(h.llm.requests.length - asked, 1, 'one model request');
    const route = await waitFor(() => h.db.stores.routes.getRoute('discord', message.id), 'stored route');
    assert.equal((await h.db.stores.workstreams.get(route.wsId))?.userId, userId);
    const history = await waitFor(async () => {
      const messages = await h.db.stores.conversations.load(route.wsId);
      return messages.length === 2 ? messages : undefined;
    }, 'stored history');
    assert.deepEqual(
      history.map((m) => m.role),
      ['user', 'assistant'],
    );

    h.fake.state.injectMessage(message.id, user, 'and a follow-up');
    await h.fake.waitFor(
      () => h.textMessages(message.id).find((m) => m.content === 'Same conversation.'),
      20_000,
      'follow-up answer',
    );
    assert.equal(
      (await h.db.stores.workstreams.list({ userId })).length,
      1,
      'the follow-up went to the same workstream',
    );
  });

  it('gives each of a burst of new conversations its own thread, workstream and answer', async () => {
    const count = 6;
    const users = await Promise.all(
      Array.from({ length: count }, (_, k) => h.linkedUser(String(400000000000000200n + BigInt(k)), `burst${k}`)),
    );
    h.llm.fallback = () => ({ text: 'Burst answer.' });
    const messages = users.map(({ user }, k) => h.fake.state.injectMessage(CHANNEL_ID, user, `burst ${k}`, true));
    for (const message of messages)
      await h.fake.waitFor(
        () => h.textMessages(message.id).find((m) => m.content === 'Burst answer.'),
        20_000,
        'burst answer',
      );
    for (const { userId } of users) assert.equal((await h.db.stores.workstreams.list({ userId })).length, 1);
    h.llm.fallback = undefined;
  });

  it('stores nothing, asks no model and shows a notice when the thread cannot be opened', async () => {
    const { user, userId } = await h.linkedUser('400000000000000182', 'bo');
    const foldersBefore = await folders();
    h.fake.refuse('POST', THREAD_PATH, 1);
    const asked = h.llm.requests.length;
    const message = h.fake.state.injectMessage(CHANNEL_ID, user, 'no permission here', true);
    await h.fake.waitFor(
      () =>
        h
          .botMessages(CHANNEL_ID)
          .find((m) => m.content.includes('could not be handled') && m.createdAt >= message.createdAt),
      15_000,
      'error notice in the channel',
    );
    assert.equal(h.llm.requests.length, asked, 'the model was never asked');
    assert.deepEqual(await h.db.stores.workstreams.list({ userId }), [], 'no workstream row');
    assert.equal(await h.db.stores.routes.getRoute('discord', message.id), undefined, 'no route');
    assert.deepEqual(await folders(), foldersBefore, 'no folder');
    assert.equal(h.botMessages(message.id).length, 0);
  });
});
