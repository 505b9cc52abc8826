import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createSilentLogger } from '../../../shared/logger.js';
import { createHttpApp } from '../app.js';
import { mintServiceToken } from '../auth.js';
import { createHttpMetrics } from '../metrics.js';
import { createAdminMcpRoutes, type McpAdmin } from './admin-mcp.js';
import { EMPTY_MCP_HEALTH } from './health.js';

const jwt = { secret: 'admin-test-secret-admin-test-secret', audience: 'turnstone-channel' };

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
    routers: [createAdminMcpRoutes({ jwt, mcp })],
  });
  return { app, calls };
}

describe('admin MCP routes', () => {
  it('refreshes all, one, and reconnects with a service-scoped token', async () => {
    const { app, calls } = setup();
    const headers = { authorization: `Bearer ${await mintServiceToken(jwt, { scopes: ['service'] })}` };
    assert.equal((await app.request('/v1/api/admin/mcp', { headers })).status, 200);
    assert.equal((await app.request('/v1/api/admin/mcp/refresh', { method: 'POST', headers })).status, 200);
    const one = await app.request('/v1/api/admin/mcp/refresh', { method: 'POST', headers, body: '{"server":"docs"}' });
    assert.deepEqual(await one.json(), { status: 'ok', refreshed: 'docs' });
    assert.equal((await app.request('/v1/api/admin/mcp/reconnect', { method: 'POST', headers, body: '{"server":"docs"}' })).status, 200);
    assert.deepEqual(calls, ['refresh:*', 'refresh:docs', 'reconnect:docs']);
  });

  it('reloads the server definitions, and answers 503 while MCP has not started', async () => {
    const headers = { authorization: `Bearer ${await mintServiceToken(jwt, { scopes: ['service'] })}` };
    const running = setup();
    const answer = await running.app.request('/v1/api/admin/mcp/reload', { method: 'POST', headers });
    assert.equal(answer.status, 200);
    assert.deepEqual(((await answer.json()) as { added: string[] }).added, ['new']);
    const early = await setup(false).app.request('/v1/api/admin/mcp/reload', { method: 'POST', headers });
    assert.equal(early.status, 503);
    const writer = { authorization: `Bearer ${await mintServiceToken(jwt, { scopes: ['write'] })}` };
    assert.equal((await running.app.request('/v1/api/admin/mcp/reload', { method: 'POST', headers: writer })).status, 403);
    assert.deepEqual(running.calls, ['reload']);
  });

  it('rejects unknown servers, bad bodies and tokens without the service scope', async () => {
    const { app, calls } = setup();
    const headers = { authorization: `Bearer ${await mintServiceToken(jwt, { scopes: ['service'] })}` };
    assert.equal((await app.request('/v1/api/admin/mcp/reconnect', { method: 'POST', headers, body: '{"server":"nope"}' })).status, 404);
    assert.equal((await app.request('/v1/api/admin/mcp/reconnect', { method: 'POST', headers })).status, 400);
    assert.equal((await app.request('/v1/api/admin/mcp/refresh', { method: 'POST', headers, body: '{oops' })).status, 400);
    const writer = { authorization: `Bearer ${await mintServiceToken(jwt, { scopes: ['write'] })}` };
    assert.equal((await app.request('/v1/api/admin/mcp/refresh', { method: 'POST', headers: writer })).status, 403);
    assert.equal((await app.request('/v1/api/admin/mcp')).status, 401);
    assert.deepEqual(calls, ['reconnect:nope']);
  });
});
