/** The private sign-in link goes to the caller's DM only; the thread says the call waits, without the link. */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createSilentLogger } from '../shared/logger.js';
import { RecordingAdapter } from '../../test/fakes/recording-adapter.js';
import { createTestStores, type TestStores } from '../../test/helpers/test-stores.js';
import { McpAuthorizationDesk } from './mcp-authorizations.js';

const LINK = 'https://auth.example.test/authorize?state=secret-state-0123456789';

describe('MCP authorization links', () => {
  let db: TestStores;
  let adapter: RecordingAdapter;
  let desk: McpAuthorizationDesk;
  let aliceId = '';
  let carolId = '';

  before(async () => {
    db = await createTestStores();
    aliceId = (await db.stores.users.createUser('alice')).userId;
    carolId = (await db.stores.users.createUser('carol')).userId;
    await db.stores.users.link('fake', 'U-alice', aliceId);
    await db.stores.routes.putRoute({ channelType: 'fake', channelId: 'thread-1', wsId: 'ws-1', ownerUserId: aliceId });
    adapter = new RecordingAdapter();
    desk = new McpAuthorizationDesk({ stores: db.stores, adapters: new Map([['fake', adapter]]), logger: createSilentLogger(), signal: new AbortController().signal });
  });

  after(() => db.close());

  it('sends the link by direct message and notes the wait in the thread without it', async () => {
    const expiresAt = new Date(Date.now() + 300_000).toISOString();
    await desk.handle({ server: 'tracker', userId: aliceId, conversationId: 'ws-1', url: LINK, expiresAt }, new AbortController().signal);
    const texts = adapter.shown.map((entry) => ({ channelId: entry.channelId, text: entry.message.kind === 'text' ? entry.message.text : '' }));
    const direct = texts.filter((entry) => entry.channelId === 'dm-U-alice');
    const thread = texts.filter((entry) => entry.channelId === 'thread-1');
    assert.equal(direct.length, 1);
    assert.ok(direct[0]?.text.includes(LINK));
    assert.equal(thread.length, 1);
    assert.match(thread[0]?.text ?? '', /Waiting for authorization of tracker/);
    assert.equal(thread[0]?.text.includes('secret-state'), false);
  });

  it('fails (so the call ends with a clear error) for a user no private channel reaches', async () => {
    const expiresAt = new Date(Date.now() + 300_000).toISOString();
    await assert.rejects(
      desk.handle({ server: 'tracker', userId: carolId, conversationId: '', url: LINK, expiresAt }, new AbortController().signal),
      /no direct-message channel reaches this user/,
    );
  });
});
