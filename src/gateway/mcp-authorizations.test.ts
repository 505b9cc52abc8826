/**
 * The private sign-in link goes to the caller's DM only; the thread shows the waiting call as a card with Cancel
 * (without the link), and the card says how the wait ended.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { FormCard } from '../channels/channel-adapter.js';
import { createSilentLogger } from '../shared/logger.js';
import { RecordingAdapter, type Shown } from '../../test/fakes/recording-adapter.js';
import { waitFor } from '../../test/helpers/wait-for.js';
import { createTestStores, type TestStores } from '../../test/helpers/test-stores.js';
import { McpAuthorizationDesk, isAuthorizationForm } from './mcp-authorizations.js';

const LINK = 'https://auth.example.test/authorize?state=secret-state-0123456789';
const WAIT_ID = 'wait-0123456789abcdef';

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
    const router = { linkedUser: () => Promise.resolve(undefined) };
    desk = new McpAuthorizationDesk({
      stores: db.stores,
      adapters: new Map([['fake', adapter]]),
      router,
      logger: createSilentLogger(),
      signal: new AbortController().signal,
    });
  });

  after(() => db.close());

  function card(): FormCard | undefined {
    const shown = adapter.shown.find((entry) => entry.channelId === 'thread-1' && entry.message.kind === 'form');
    return shown?.message.kind === 'form' ? shown.message.card : undefined;
  }

  it('sends the link by direct message, shows the wait as a card with Cancel, and marks it when the wait ends', async () => {
    const expiresAt = new Date(Date.now() + 300_000).toISOString();
    const wait = new AbortController();
    const handled = desk.handle(
      { server: 'tracker', userId: aliceId, conversationId: 'ws-1', url: LINK, expiresAt, waitId: WAIT_ID },
      wait.signal,
    );
    const direct = await waitForShown(adapter, 'dm-U-alice');
    assert.ok(direct.message.kind === 'text' && direct.message.text.includes(LINK));
    await waitForShown(adapter, 'thread-1');
    const pending = card();
    assert.equal(pending?.purpose, 'authorization');
    assert.equal(pending?.outcome.status, 'pending');
    assert.ok(isAuthorizationForm(pending?.formId ?? ''));
    assert.equal(JSON.stringify(pending).includes('secret-state'), false);
    wait.abort('cancelled');
    await handled;
    assert.equal(card()?.outcome.status, 'declined');
    assert.match(card()?.message ?? '', /Cancelled/);
  });

  it('marks the card authorized, or timed out, as the wait ends', async () => {
    for (const [ending, status, text] of [
      ['authorized', 'answered', /Authorized/],
      ['expired', 'expired', /in time/],
    ] as const) {
      adapter.shown.length = 0;
      const wait = new AbortController();
      const expiresAt = new Date(Date.now() + 300_000).toISOString();
      const handled = desk.handle(
        { server: 'tracker', userId: aliceId, conversationId: 'ws-1', url: LINK, expiresAt, waitId: WAIT_ID },
        wait.signal,
      );
      await waitForShown(adapter, 'thread-1');
      wait.abort(ending);
      await handled;
      assert.equal(card()?.outcome.status, status);
      assert.match(card()?.message ?? '', text);
    }
  });

  it('fails (so the call ends with a clear error) for a user no private channel reaches', async () => {
    const expiresAt = new Date(Date.now() + 300_000).toISOString();
    await assert.rejects(
      desk.handle(
        { server: 'tracker', userId: carolId, conversationId: '', url: LINK, expiresAt, waitId: WAIT_ID },
        new AbortController().signal,
      ),
      /no direct-message channel reaches this user/,
    );
  });
});

function waitForShown(adapter: RecordingAdapter, channelId: string): Promise<Shown> {
  return waitFor(() => adapter.shown.find((entry) => entry.channelId === channelId), `a message in ${channelId}`);
}
