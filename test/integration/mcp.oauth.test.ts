/**
 * Per-user OAuth for a remote MCP server (docs/design/mcp-oauth.md), against a protected MCP server and a fake OAuth
 * authorization server built on the MCP SDK's server classes: each user authorizes through their own private link and
 * every call carries its caller's identity, across a restart and an access-token expiry; forged and replayed `state`s
 * authorize nothing; the database file never holds a raw token.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { Hono } from 'hono';
import { createMcpManager, type McpManager } from '../../src/agent/mcp/mcp-manager.js';
import { createOAuthCallbackRoutes } from '../../src/gateway/http/routes/oauth-callback.js';
import type { McpAuthorizationRequest } from '../../src/agent/mcp/mcp-manager-context.js';
import type { ToolResult } from '../../src/agent/tools/tool.js';
import { startFakeOAuthMcpServer, type FakeOAuthMcpServer } from '../fakes/fake-oauth-mcp-server.js';
import { httpSpec, toolContext } from '../fakes/mcp-servers.js';
import { createTestStores, testPostgresUrl, type TestStores } from '../helpers/test-stores.js';

const PUBLIC_URL = 'https://sandpiper.example.test';
const TOKEN_KEY = 'test-token-key-0123456789abcdef';

function outputText(result: ToolResult): string {
  return typeof result.output === 'string' ? result.output : JSON.stringify(result.output);
}

/** The links sent so far, and a promise for each one still to come (resolved by the handler, not by polling). */
class LinkInbox {
  readonly links: McpAuthorizationRequest[] = [];
  private readonly waiting = new Map<number, (link: McpAuthorizationRequest) => void>();

  deliver(link: McpAuthorizationRequest): void {
    this.links.push(link);
    this.waiting.get(this.links.length)?.(link);
    this.waiting.delete(this.links.length);
  }

  /** The `count`-th link (1-based), now or when it arrives. */
  number(count: number): Promise<McpAuthorizationRequest> {
    const link = this.links[count - 1];
    if (link) return Promise.resolve(link);
    return new Promise((resolve) => this.waiting.set(count, resolve));
  }
}

/** A manager whose private links land in `inbox`. */
function startManager(fake: FakeOAuthMcpServer, db: TestStores, inbox: LinkInbox, authorizationTimeoutMs = 20_000): McpManager {
  const manager = createMcpManager({
    servers: [httpSpec('remote', fake.url, { oauth: { scopes: [] } })],
    parentEnv: {},
    oauth: {
      credentials: db.stores.mcpCredentials,
      tokenKey: TOKEN_KEY,
      publicUrl: PUBLIC_URL,
      authorizationTimeoutMs,
      callerOf: (workstreamId) => Promise.resolve({ userId: workstreamId.replace(/^ws-/, ''), conversationId: workstreamId }),
    },
  });
  manager.onAuthorization((request) => {
    inbox.deliver(request);
    return Promise.resolve();
  });
  return manager;
}

/** The gateway's real callback route in front of `manager`. */
function callbackApp(manager: McpManager): Hono {
  return createOAuthCallbackRoutes({ complete: (state, code) => manager.completeAuthorization(state, code), decline: (state) => manager.declineAuthorization(state) });
}

/** Plays the user's browser: sign in at the link, then follow the redirect to the gateway's callback route. */
async function authorizeInBrowser(fake: FakeOAuthMcpServer, manager: McpManager, link: McpAuthorizationRequest, user: string): Promise<string> {
  const callback = await fake.signIn(link.url, user);
  assert.equal(`${callback.origin}${callback.pathname}`, `${PUBLIC_URL}/v1/oauth/callback`);
  const response = await callbackApp(manager).request(`${callback.pathname}${callback.search}`);
  assert.equal(response.status, 200, await response.text());
  return callback.searchParams.get('state') ?? '';
}

function call(manager: McpManager, tool: string, user: string): Promise<ToolResult> {
  return manager.callTool(tool, {}, toolContext({ workstreamId: `ws-${user}` }));
}

describe('MCP OAuth: two users, each with their own token', () => {
  let fake: FakeOAuthMcpServer;
  let db: TestStores;
  let manager: McpManager;
  const inbox = new LinkInbox();
  let aliceState = '';

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

  it('tells the model the server needs authorization until someone authorizes', async () => {
    const names = (await manager.listTools()).map((tool) => tool.name);
    assert.deepEqual(names, ['mcp__remote__sign_out', 'mcp__remote__authorize']);
    assert.match(manager.systemPromptSection(), /remote: call mcp__remote__authorize/);
  });

  it('sends alice a private link, waits, and proceeds with her token once she authorizes', async () => {
    const pending = call(manager, 'mcp__remote__authorize', 'alice');
    const link = await inbox.number(1);
    assert.equal(link.userId, 'alice');
    assert.equal(link.conversationId, 'ws-alice');
    const url = new URL(link.url);
    assert.equal(url.searchParams.get('code_challenge_method'), 'S256');
    assert.equal(url.searchParams.get('redirect_uri'), `${PUBLIC_URL}/v1/oauth/callback`);
    assert.equal(url.searchParams.get('resource'), fake.url);
    assert.ok((url.searchParams.get('state') ?? '').length >= 16);
    aliceState = await authorizeInBrowser(fake, manager, link, 'alice');
    const result = await pending;
    assert.equal(result.isError, false, outputText(result));
    assert.match(outputText(result), /mcp__remote__whoami/);
    assert.match(outputText(await call(manager, 'mcp__remote__whoami', 'alice')), /user=alice/);
  });

  it('gives bob his own link and his calls carry his identity, alice keeps hers', async () => {
    const pending = call(manager, 'mcp__remote__whoami', 'bob');
    const link = await inbox.number(2);
    assert.equal(link.userId, 'bob');
    await authorizeInBrowser(fake, manager, link, 'bob');
    assert.match(outputText(await pending), /user=bob/);
    assert.match(outputText(await call(manager, 'mcp__remote__whoami', 'alice')), /user=alice/);
    assert.equal(inbox.links.length, 2);
  });

  it('refuses a forged, a replayed and a missing state with a 4xx, authorizing nothing', async () => {
    const app = callbackApp(manager);
    const forged = await app.request('/v1/oauth/callback?state=forged-state-0123456789abcdef&code=some-code');
    const replayed = await app.request(`/v1/oauth/callback?state=${encodeURIComponent(aliceState)}&code=some-code`);
    const missing = await app.request('/v1/oauth/callback?code=some-code');
    assert.deepEqual([forged.status, replayed.status, missing.status], [400, 400, 400]);
    assert.doesNotMatch(await replayed.text(), /some-code/);
    assert.equal((await manager.listAuthorizations({})).length, 2);
  });

  it('refreshes an expired access token without a new link', async () => {
    fake.expireAccessTokens();
    const before = fake.provider.refreshes;
    assert.match(outputText(await call(manager, 'mcp__remote__whoami', 'alice')), /user=alice/);
    assert.match(outputText(await call(manager, 'mcp__remote__whoami', 'bob')), /user=bob/);
    assert.ok(fake.provider.refreshes >= before + 2, `refreshes: ${fake.provider.refreshes}`);
    assert.equal(inbox.links.length, 2);
  });

  it('keeps both authorizations across a restart (catalog known, no new link)', async () => {
    await manager.shutdown();
    manager = startManager(fake, db, inbox);
    await manager.start();
    assert.ok((await manager.listTools()).some((tool) => tool.name === 'mcp__remote__whoami'));
    assert.match(outputText(await call(manager, 'mcp__remote__whoami', 'bob')), /user=bob/);
    assert.match(outputText(await call(manager, 'mcp__remote__whoami', 'alice')), /user=alice/);
    assert.equal(inbox.links.length, 2);
  });

  it('never writes a raw token into the database file', async () => {
    await db.stores.settleWrites?.();
    const file = db.url.replace(/^sqlite:/, '');
    const bytes = readdirSync(dirname(file)).map((name) => readFileSync(join(dirname(file), name)).toString('latin1')).join('');
    const secrets = fake.issuedSecrets();
    assert.ok(secrets.length >= 4);
    for (const secret of secrets) assert.equal(bytes.includes(secret), false, 'a raw token is in the database file');
    assert.ok((await db.stores.mcpCredentials.list({})).length >= 3);
  });

  it('lets a user sign out from chat: their next call asks for a new link, the other user is untouched', async () => {
    assert.match(outputText(await call(manager, 'mcp__remote__sign_out', 'bob')), /Signed out of remote/);
    assert.deepEqual((await manager.listAuthorizations({ server: 'remote' })).map((entry) => entry.userId), ['alice']);
    const pending = call(manager, 'mcp__remote__whoami', 'bob');
    const link = await inbox.number(3);
    assert.equal(link.userId, 'bob');
    await authorizeInBrowser(fake, manager, link, 'bob');
    assert.match(outputText(await pending), /user=bob/);
    assert.match(outputText(await call(manager, 'mcp__remote__whoami', 'alice')), /user=alice/);
  });

  it('a waiting call does not hold up other users, and is cancelable', async () => {
    const controller = new AbortController();
    const pending = manager.callTool('mcp__remote__whoami', {}, toolContext({ workstreamId: 'ws-carol', signal: controller.signal }));
    assert.equal((await inbox.number(4)).userId, 'carol');
    assert.match(outputText(await call(manager, 'mcp__remote__whoami', 'alice')), /user=alice/);
    controller.abort();
    await assert.rejects(pending, { name: 'AbortError' });
  });

  it('a declined authorization ends the waiting call with a clear error', async () => {
    const pending = call(manager, 'mcp__remote__whoami', 'dave');
    const link = await inbox.number(5);
    const state = new URL(link.url).searchParams.get('state') ?? '';
    const response = await callbackApp(manager).request(`/v1/oauth/callback?state=${encodeURIComponent(state)}&error=access_denied`);
    assert.equal(response.status, 400);
    const result = await pending;
    assert.equal(result.isError, true);
    assert.match(outputText(result), /declined/);
  });
});

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
