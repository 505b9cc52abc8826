/**
 * End to end: the link directory of a single gateway on SQLite (ADR 0029). A first-time writer is answered without a
 * query for who they are; an unlink by another process (the CLI, here a second connection to the same file) applies
 * within a poll, and a link by another process at once.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { CHANNEL_ID, DiscordHarness } from '../fakes/fake-discord-harness.js';
import { createKnex, createStores, type Knex, type Stores } from '../../src/storage/index.js';
import { POLL_MS } from '../../src/gateway/link-directory.js';

const settle = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

describe('discord link directory (one instance on SQLite)', () => {
  let h: DiscordHarness;
  /** Another process's view of the database: its commits change `data_version` for the gateway's connection. */
  let otherKnex: Knex;
  let other: Stores;
  const linkQueries: string[] = [];
  const onQuery = (query: { sql: string }): void => {
    if (/channel_users/.test(query.sql)) linkQueries.push(query.sql);
  };

  before(async () => {
    h = await DiscordHarness.start();
    otherKnex = createKnex(h.db.url);
    other = createStores(otherKnex);
    h.db.knex.on('query', onQuery);
  });
  after(async () => {
    h.db.knex.off('query', onQuery);
    await otherKnex.destroy();
    await h.close();
  });

  it('answers a first-time writer without asking the database who they are', async () => {
    const { user } = await h.linkedUser('400000000000000091', 'nadia');
    await settle(200);
    linkQueries.length = 0;
    h.llm.enqueue({ text: 'Hello Nadia.' });
    const { threadId } = await h.mention(user, 'hi');
    await h.fake.waitFor(() => h.textMessages(threadId).find((m) => m.content === 'Hello Nadia.'), 20_000, 'the answer');
    assert.deepEqual(linkQueries, [], 'the writer was found in memory');
  });

  it('applies an unlink and a link made by another process within a poll', async () => {
    const { user, userId } = await h.linkedUser('400000000000000092', 'omar');
    h.llm.enqueue({ text: 'Hello Omar.' });
    const first = await h.mention(user, 'hello');
    await h.fake.waitFor(() => h.textMessages(first.threadId).find((m) => m.content === 'Hello Omar.'), 20_000, 'the first answer');

    assert.equal(await other.users.unlink('discord', '400000000000000092'), true);
    await settle(POLL_MS * 2 + 200);
    h.fake.state.injectMessage(CHANNEL_ID, user, 'still me?', true);
    await h.fake.waitFor(() => h.botMessages(CHANNEL_ID).find((m) => m.content.includes('/link')), 15_000, 'the link hint');
    const requests = h.llm.requests.length;

    assert.equal(await other.users.link('discord', '400000000000000092', userId), true);
    await settle(POLL_MS * 2 + 200);
    h.llm.enqueue({ text: 'Welcome back, Omar.' });
    const again = await h.mention(user, 'back again');
    await h.fake.waitFor(() => h.textMessages(again.threadId).find((m) => m.content === 'Welcome back, Omar.'), 20_000, 'the answer after relinking');
    assert.equal(h.llm.requests.length, requests + 1, 'nothing was answered while the identity was unlinked');
  });

  it('answers a writer linked by another process a moment ago, without waiting for a poll', async () => {
    const stranger = h.fake.user('400000000000000093', 'pia');
    h.fake.state.injectMessage(CHANNEL_ID, stranger, 'who are you?', true);
    await h.fake.waitFor(() => h.botMessages(CHANNEL_ID).filter((m) => m.content.includes('/link')).length >= 2, 15_000, 'the hint');
    const created = await other.users.createUser('pia');
    await other.users.link('discord', '400000000000000093', created.userId);
    h.llm.enqueue({ text: 'Hello Pia.' });
    const { threadId } = await h.mention(stranger, 'now?');
    await h.fake.waitFor(() => h.textMessages(threadId).find((m) => m.content === 'Hello Pia.'), 20_000, 'the answer');
  });
});
