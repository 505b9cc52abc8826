/**
 * Per-user MCP OAuth beyond the two-user flow: an operator's login ahead of time, tokens shared by instances on
 * PostgreSQL, and a link nobody uses (docs/design/mcp-oauth.md).
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { McpManager } from '../../src/agent/mcp/mcp-manager.js';
import { authorizeInBrowser, call, callbackApp, outputText, useOAuthFixture } from '../helpers/mcp-oauth.js';
import { testPostgresUrl } from '../helpers/test-stores.js';

describe('MCP OAuth: an operator authorizes ahead of time', () => {
  const f = useOAuthFixture();

  it('makes the catalog known after the login link is used, without any link sent to a channel', async () => {
    const { fake, inbox, manager } = f;
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
    assert.deepEqual(
      (await manager.listTools()).map((tool) => tool.name),
      ['mcp__remote__whoami', 'mcp__remote__sign_out'],
    );
    assert.deepEqual(await manager.startLogin('remote', 'admin', AbortSignal.timeout(10_000)), { authorized: true });
    assert.equal(inbox.links.length, 0);
  });
});

describe(
  'MCP OAuth on PostgreSQL: a token stored by one instance serves the others',
  { skip: testPostgresUrl() === undefined ? 'SANDPIPER_TEST_PG_URL not set' : false },
  () => {
    const f = useOAuthFixture({ url: testPostgresUrl() ?? '', instances: 2 });

    it('alice authorizes through one instance and calls through the other without a new link', async () => {
      const { fake, db, inbox } = f;
      const [first, second] = f.managers as [McpManager, McpManager];
      const pending = call(first, 'mcp__remote__authorize', 'alice');
      await authorizeInBrowser(fake, first, await inbox.number(1), 'alice');
      assert.equal((await pending).isError, false);
      assert.deepEqual(await second.startLogin('remote', 'alice', AbortSignal.timeout(10_000)), { authorized: true });
      assert.match(outputText(await call(second, 'mcp__remote__whoami', 'alice')), /user=alice/);
      assert.equal(inbox.links.length, 1);
      const rows = await db.stores.mcpCredentials.list({});
      for (const secret of fake.issuedSecrets())
        assert.equal(
          rows.some((row) => row.secret.includes(secret)),
          false,
        );
    });

    it('carol opens the link issued by one instance, the callback lands on the other, and the waiting call proceeds', async () => {
      const { fake, inbox } = f;
      const [first, second] = f.managers as [McpManager, McpManager];
      const pending = call(first, 'mcp__remote__whoami', 'carol');
      const link = await inbox.number(2);
      assert.equal(link.userId, 'carol');
      await authorizeInBrowser(fake, second, link, 'carol');
      assert.match(outputText(await pending), /user=carol/);
      const state = new URL(link.url).searchParams.get('state') ?? '';
      const replayed = await callbackApp(first).request(
        `/v1/oauth/callback?state=${encodeURIComponent(state)}&code=again`,
      );
      assert.equal(replayed.status, 400);
    });

    it('a Cancel on another instance ends the waiting call of dave with a tool error; only dave (or an admin) may cancel it', async () => {
      const { fake, inbox } = f;
      const [first, second] = f.managers as [McpManager, McpManager];
      const pending = call(first, 'mcp__remote__whoami', 'dave');
      const link = await inbox.number(3);
      assert.equal(await second.cancelAuthorization(link.waitId, 'mallory'), false);
      assert.equal(await second.cancelAuthorization(link.waitId, 'dave'), true);
      const result = await pending;
      assert.equal(result.isError, true);
      assert.match(outputText(result), /cancelled/);
      const callback = await fake.signIn(link.url, 'dave');
      assert.equal((await callbackApp(second).request(`${callback.pathname}${callback.search}`)).status, 400);
      assert.deepEqual((await first.listAuthorizations({ userId: 'dave' })).length, 0);
    });
  },
);

describe('MCP OAuth: a token about to expire', () => {
  const f = useOAuthFixture({
    prepare: (fake) => {
      fake.provider.lifetimeSeconds = 30;
    },
  });

  it('is refreshed before the call uses it: no request is refused, no new link', async () => {
    const { fake, inbox, manager } = f;
    const pending = call(manager, 'mcp__remote__authorize', 'frank');
    await authorizeInBrowser(fake, manager, await inbox.number(1), 'frank');
    assert.equal((await pending).isError, false);
    const [refreshes, refused] = [fake.provider.refreshes, fake.refusedRequests()];
    assert.match(outputText(await call(manager, 'mcp__remote__whoami', 'frank')), /user=frank/);
    assert.equal(fake.provider.refreshes, refreshes + 1);
    assert.equal(fake.refusedRequests(), refused);
    assert.equal(inbox.links.length, 1);
  });
});

describe('MCP OAuth: a link nobody uses', () => {
  const f = useOAuthFixture({ authorizationTimeoutMs: 500 });

  it('ends the waiting call after the time-out, and the expired link authorizes nothing', async () => {
    const { fake, inbox, manager } = f;
    const result = await call(manager, 'mcp__remote__authorize', 'erin');
    assert.equal(result.isError, true);
    assert.match(outputText(result), /not completed within/);
    const callback = await fake.signIn((await inbox.number(1)).url, 'erin');
    assert.equal((await callbackApp(manager).request(`${callback.pathname}${callback.search}`)).status, 400);
    assert.deepEqual(await manager.listAuthorizations({}), []);
  });
});
