/**
 * Per-user MCP OAuth beyond the two-user flow: an operator's login ahead of time, tokens shared by instances on
 * PostgreSQL, and a link nobody uses (docs/design/mcp-oauth.md).
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { McpManager } from '../../src/agent/mcp/mcp-manager.js';
import { startFakeOAuthMcpServer, type FakeOAuthMcpServer } from '../fakes/fake-oauth-mcp-server.js';
import { LinkInbox, authorizeInBrowser, call, callbackApp, outputText, startManager } from '../helpers/mcp-oauth.js';
import { createTestStores, testPostgresUrl, type TestStores } from '../helpers/test-stores.js';

describe('MCP OAuth: an operator authorizes ahead of time', () => {
  let fake: FakeOAuthMcpServer;
  let db: TestStores;
  let manager: McpManager;
  const inbox = new LinkInbox();

  before(async () => {
    fake = await startFakeOAuthMcpServer();
    db = await createTestStores();
    manager = startManager(fake, db, inbox);
    await manager.start();
  });

  after(async () => {
    await manager.shutdown();
    await db.close();
    await fake.close();
  });

  it('makes the catalog known after the login link is used, without any link sent to a channel', async () => {
    const started = await manager.startLogin('remote', 'admin', AbortSignal.timeout(10_000));
    assert.ok('url' in started);
    const toolsKnown = new Promise<void>((resolve) => {
      const stop = manager.onChange((kind) => {
        if (kind === 'tools' && manager.catalog().toolMap.has('mcp__remote__whoami')) {
          stop();
          resolve();
        }
      });
    });
    const callback = await fake.signIn(started.url, 'admin');
    assert.equal((await callbackApp(manager).request(`${callback.pathname}${callback.search}`)).status, 200);
    await toolsKnown;
    assert.deepEqual((await manager.listTools()).map((tool) => tool.name), ['mcp__remote__whoami', 'mcp__remote__sign_out']);
    assert.deepEqual(await manager.startLogin('remote', 'admin', AbortSignal.timeout(10_000)), { authorized: true });
    assert.equal(inbox.links.length, 0);
  });
});

describe('MCP OAuth on PostgreSQL: a token stored by one instance serves the others', { skip: testPostgresUrl() === undefined ? 'SANDPIPER_TEST_PG_URL not set' : false }, () => {
  let fake: FakeOAuthMcpServer;
  let db: TestStores;
  let first: McpManager;
  let second: McpManager;
  const inbox = new LinkInbox();

  before(async () => {
    fake = await startFakeOAuthMcpServer();
    db = await createTestStores({ url: testPostgresUrl() ?? '' });
    first = startManager(fake, db, inbox);
    second = startManager(fake, db, inbox);
    await Promise.all([first.start(), second.start()]);
  });

  after(async () => {
    await Promise.all([first.shutdown(), second.shutdown()]);
    await db.close();
    await fake.close();
  });

  it('alice authorizes through one instance and calls through the other without a new link', async () => {
    const pending = call(first, 'mcp__remote__authorize', 'alice');
    await authorizeInBrowser(fake, first, await inbox.number(1), 'alice');
    assert.equal((await pending).isError, false);
    assert.deepEqual(await second.startLogin('remote', 'alice', AbortSignal.timeout(10_000)), { authorized: true });
    assert.match(outputText(await call(second, 'mcp__remote__whoami', 'alice')), /user=alice/);
    assert.equal(inbox.links.length, 1);
    const rows = await db.stores.mcpCredentials.list({});
    for (const secret of fake.issuedSecrets()) assert.equal(rows.some((row) => row.secret.includes(secret)), false);
  });
});

describe('MCP OAuth: a link nobody uses', () => {
  let fake: FakeOAuthMcpServer;
  let db: TestStores;
  let manager: McpManager;
  const inbox = new LinkInbox();

  before(async () => {
    fake = await startFakeOAuthMcpServer();
    db = await createTestStores();
    manager = startManager(fake, db, inbox, 500);
    await manager.start();
  });

  after(async () => {
    await manager.shutdown();
    await db.close();
    await fake.close();
  });

  it('ends the waiting call after the time-out, and the expired link authorizes nothing', async () => {
    const result = await call(manager, 'mcp__remote__authorize', 'erin');
    assert.equal(result.isError, true);
    assert.match(outputText(result), /not completed within/);
    const callback = await fake.signIn((await inbox.number(1)).url, 'erin');
    assert.equal((await callbackApp(manager).request(`${callback.pathname}${callback.search}`)).status, 400);
    assert.deepEqual(await manager.listAuthorizations({}), []);
  });
});
