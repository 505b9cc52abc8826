/**
 * The link directory of a single gateway on SQLite (ADR 0029), on the recording adapter with the real gateway and
 * agent core: a first-time writer is answered without a query for who they are; an unlink by another process (the
 * CLI; here a second connection to the same file) applies at the next poll, and a link by another process at once.
 * Moved from discord.link-directory (through discord.js): who a writer is, is the gateway's; the platform adds nothing.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createKnex, createStores, type Knex, type Stores } from '../../src/storage/index.js';
import { textParts } from '../fakes/fake-model-provider.js';
import type { PlatformUser } from '../../src/channels/channel-adapter.js';
import { person } from '../fakes/recording-adapter.js';
import { startRecordingGateway, until, type RecordingGateway } from '../helpers/recording-gateway.js';

const CHANNEL = 'chan-links';

describe('link directory (one instance on SQLite)', () => {
  let fixture: RecordingGateway;
  /** Another process's view of the database: its commits change `data_version` for the gateway's connection. */
  let otherKnex: Knex;
  let other: Stores;
  /** The gateway's link queries, and how many directory loads (a query of every link) have been answered. */
  const linkQueries: string[] = [];
  let linkResponses = 0;
  const onQuery = (query: { sql: string }): void => {
    if (/channel_users/.test(query.sql)) linkQueries.push(query.sql);
  };
  const onResponse = (_response: unknown, query: { sql: string }): void => {
    if (/order by `channel_users`/.test(query.sql)) linkResponses += 1; // listLinkedUsers: the whole directory
  };
  let next = 0;

  before(async () => {
    fixture = await startRecordingGateway('sp-links-', {}, { editIntervalMs: 10 });
    otherKnex = createKnex(fixture.db.url);
    other = createStores(otherKnex);
    fixture.db.knex.on('query', onQuery);
    fixture.db.knex.on('query-response', onResponse);
  });
  after(async () => {
    fixture.db.knex.off('query', onQuery);
    fixture.db.knex.off('query-response', onResponse);
    await otherKnex.destroy();
    await fixture.close();
  });

  /** Resolves once the gateway has loaded its directory again after this call (a link of its own or its poll saw a commit). */
  async function nextLinkLoad(): Promise<void> {
    const seen = linkResponses;
    await until(() => linkResponses > seen, 'a reload of the links');
  }
  /** `user` mentions the bot in the channel; resolves with the new thread's id. */
  async function mention(user: PlatformUser, text: string): Promise<string> {
    next += 1;
    const threads = fixture.adapter.threads.length;
    void fixture.adapter.deliver({
      type: 'message',
      user,
      conversation: { kind: 'channel', channelId: CHANNEL },
      messageId: `m-${next}`,
      text,
      mentioned: true,
    });
    return (await until(() => fixture.adapter.threads[threads], 'the new thread')).id;
  }
  const answered = (threadId: string, text: string): Promise<true> =>
    until(() => fixture.adapter.texts(threadId).includes(text), text);
  const hints = (): number => fixture.adapter.notices(CHANNEL).filter((code) => code === 'link-hint').length;

  it('answers a first-time writer without asking the database who they are', async () => {
    const user = person('p-nadia');
    const reload = nextLinkLoad();
    await fixture.db.stores.users.link('fake', user.id, (await fixture.db.stores.users.createUser('nadia')).userId);
    await reload;
    linkQueries.length = 0;
    fixture.model.enqueue({ parts: textParts('Hello Nadia.') });
    await answered(await mention(user, 'hi'), 'Hello Nadia.');
    assert.deepEqual(linkQueries, [], 'the writer was found in memory');
  });

  it('applies an unlink and a link made by another process at the next poll', async () => {
    const user = person('p-omar');
    const { userId } = await fixture.db.stores.users.createUser('omar');
    await fixture.db.stores.users.link('fake', user.id, userId);
    fixture.model.enqueue({ parts: textParts('Hello Omar.') });
    await answered(await mention(user, 'hello'), 'Hello Omar.');

    let reload = nextLinkLoad();
    assert.equal(await other.users.unlink('fake', user.id), true);
    await reload;
    const hinted = hints();
    void fixture.adapter.deliver({
      type: 'message',
      user,
      conversation: { kind: 'channel', channelId: CHANNEL },
      messageId: 'm-still-me',
      text: 'still me?',
      mentioned: true,
    });
    await until(() => hints() > hinted, 'the link hint');
    const calls = fixture.model.requests.length;

    reload = nextLinkLoad();
    assert.equal(await other.users.link('fake', user.id, userId), true);
    await reload;
    fixture.model.enqueue({ parts: textParts('Welcome back, Omar.') });
    await answered(await mention(user, 'back again'), 'Welcome back, Omar.');
    assert.equal(fixture.model.requests.length, calls + 1, 'nothing was answered while the identity was unlinked');
  });

  it('answers a writer linked by another process a moment ago, without waiting for a poll', async () => {
    const stranger = person('p-pia');
    const hinted = hints();
    void fixture.adapter.deliver({
      type: 'message',
      user: stranger,
      conversation: { kind: 'channel', channelId: CHANNEL },
      messageId: 'm-who',
      text: 'who are you?',
      mentioned: true,
    });
    await until(() => hints() > hinted, 'the hint');
    const created = await other.users.createUser('pia');
    await other.users.link('fake', stranger.id, created.userId);
    fixture.model.enqueue({ parts: textParts('Hello Pia.') });
    await answered(await mention(stranger, 'now?'), 'Hello Pia.');
  });
});
