import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createSilentLogger } from '../../../shared/logger.js';
import { createTestStores, type TestStores } from '../../../../test/helpers/test-stores.js';
import { createHttpApp } from '../app.js';
import { mintAdminToken, mintServiceToken } from '../auth.js';
import { createHttpMetrics } from '../metrics.js';
import { createAdminMcpRoutes, type McpAdmin } from './admin-mcp.js';
import { EMPTY_MCP_HEALTH } from './health.js';

const ADMIN_SECRET = 'admin-secret-admin-secret-admin-secret';
const notify = { secret: 'notify-secret-notify-secret-notify-secret', audience: 'turnstone-channel' };
let db: TestStores;
before(async () => {
  db = await createTestStores();
});
after(() => db.close());

function setup(started = true) {
  const calls: string[] = [];
  const mcp: McpAdmin = {
    status: () => ({ servers: 1, perServer: [{ name: 'docs', state: 'connected' }] }),
    refresh: async (server) => {
      calls.push(`refresh:${server ?? '*'}`);
      return server === undefined || server === 'docs';
    },
    reconnect: async (server) => {
      calls.push(`reconnect:${server}`);
      return server === 'docs';
    },
    reload: async () => {
      calls.push('reload');
      return started ? { added: ['new'], removed: [], updated: [], failed: [], rejected: [] } : undefined;
    },
  };
  const app = createHttpApp({
    logger: createSilentLogger(),
    metrics: createHttpMetrics(),
    health: { adapters: () => ({}), mcp: () => EMPTY_MCP_HEALTH },
    routers: [createAdminMcpRoutes({ adminSecret: ADMIN_SECRET, mcp, audit: db.stores.adminAudit })],
  });
  return { app, calls };
}

const bearer = async (scope: 'admin:read' | 'admin:write'): Promise<Record<string, string>> => ({
  authorization: `Bearer ${await mintAdminToken(ADMIN_SECRET, { subject: 'ops', scopes: [scope] })}`,
});

describe('admin MCP routes', () => {
  it('refreshes all, one, and reconnects with an admin:write token, and audits each change', async () => {
    const { app, calls } = setup();
    const headers = await bearer('admin:write');
    assert.equal((await app.request('/v1/api/admin/mcp', { headers })).status, 200);
    assert.equal((await app.request('/v1/api/admin/mcp/refresh', { method: 'POST', headers })).status, 200);
    const one = await app.request('/v1/api/admin/mcp/refresh', { method: 'POST', headers, body: '{"server":"docs"}' });
    assert.deepEqual(await one.json(), { status: 'ok', refreshed: 'docs' });
    assert.equal(
      (await app.request('/v1/api/admin/mcp/reconnect', { method: 'POST', headers, body: '{"server":"docs"}' })).status,
      200,
    );
    assert.deepEqual(calls, ['refresh:*', 'refresh:docs', 'reconnect:docs']);
    const audit = (await db.stores.adminAudit.list(3)).map((entry) => [
      entry.actor,
      entry.action,
      entry.target,
      entry.outcome,
    ]);
    assert.deepEqual(audit, [
      ['api:ops', 'mcp.reconnect', 'docs', 'ok'],
      ['api:ops', 'mcp.refresh', 'docs', 'ok'],
      ['api:ops', 'mcp.refresh', 'all', 'ok'],
    ]);
  });

  it('reloads the server definitions, and answers 503 while MCP has not started', async () => {
    const headers = await bearer('admin:write');
    const running = setup();
    const answer = await running.app.request('/v1/api/admin/mcp/reload', { method: 'POST', headers });
    assert.equal(answer.status, 200);
    assert.deepEqual(((await answer.json()) as { added: string[] }).added, ['new']);
    const early = await setup(false).app.request('/v1/api/admin/mcp/reload', { method: 'POST', headers });
    assert.equal(early.status, 503);
    assert.notEqual((await db.stores.adminAudit.list(1))[0]?.outcome, 'ok', 'a failed change is audited as failed');
    const reader = await bearer('admin:read');
    assert.equal((await running.app.request('/v1/api/admin/mcp', { headers: reader })).status, 200);
    assert.equal(
      (await running.app.request('/v1/api/admin/mcp/reload', { method: 'POST', headers: reader })).status,
      403,
    );
    assert.deepEqual(running.calls, ['reload']);
  });

  it('refuses tokens signed with the notify secret whatever their scopes, and unknown servers and bad bodies', async () => {
    const { app, calls } = setup();
    for (const scopes of [['service'], ['write'], ['admin:write'], ['admin:read', 'admin:write', 'service']]) {
      const forged = { authorization: `Bearer ${await mintServiceToken(notify, { scopes })}` };
      assert.equal(
        (await app.request('/v1/api/admin/mcp/reload', { method: 'POST', headers: forged })).status,
        401,
        scopes.join(),
      );
      assert.equal((await app.request('/v1/api/admin/mcp', { headers: forged })).status, 401, scopes.join());
    }
    // The admin secret with the notify audience and type is not an admin token either.
    const wrongShape = {
      authorization: `Bearer ${await mintServiceToken({ secret: ADMIN_SECRET, audience: 'turnstone-channel' }, { scopes: ['service'] })}`,
    };
    assert.equal((await app.request('/v1/api/admin/mcp', { headers: wrongShape })).status, 401);
    const headers = await bearer('admin:write');
    assert.equal(
      (await app.request('/v1/api/admin/mcp/reconnect', { method: 'POST', headers, body: '{"server":"nope"}' })).status,
      404,
    );
    assert.equal((await app.request('/v1/api/admin/mcp/reconnect', { method: 'POST', headers })).status, 400);
    assert.equal(
      (await app.request('/v1/api/admin/mcp/refresh', { method: 'POST', headers, body: '{oops' })).status,
      400,
    );
    assert.equal((await app.request('/v1/api/admin/mcp')).status, 401);
    assert.deepEqual(calls, ['reconnect:nope']);
  });
});
