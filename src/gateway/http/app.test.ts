import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Hono } from 'hono';
import { GatewayError } from '../../shared/errors.js';
import { createSilentLogger } from '../../shared/logger.js';
import { createHttpApp } from './app.js';
import { HttpError } from './http-errors.js';
import { createHttpMetrics } from './metrics.js';
import { EMPTY_MCP_HEALTH } from './routes/health.js';

function appWith(routers: Hono[] = [], maxBodyBytes?: number): Hono {
  return createHttpApp({
    logger: createSilentLogger(),
    metrics: createHttpMetrics({ workstreams: () => ({ active: 3, running: 1 }), subscriptions: () => 2 }),
    health: {
      adapters: () => ({ discord: { connected: true } }),
      mcp: () => ({ ...EMPTY_MCP_HEALTH, servers: 2 }),
      sandbox: () => 'bwrap',
    },
    routers,
    ...(maxBodyBytes === undefined ? {} : { maxBodyBytes }),
  });
}

describe('createHttpApp', () => {
  it('answers /health with adapters, MCP counts and the tool sandbox', async () => {
    const response = await appWith().request('/health');
    assert.equal(response.status, 200);
    assert.deepEqual(await response.json(), {
      status: 'ok',
      service: 'channel',
      adapters: { discord: { connected: true } },
      mcp: { servers: 2, tools: 0, resources: 0, prompts: 0 },
      sandbox: 'bwrap',
    });
  });

  it('exposes Prometheus metrics including request timings and workstream gauges', async () => {
    const app = appWith();
    await app.request('/health');
    const response = await app.request('/metrics');
    assert.match(response.headers.get('content-type') ?? '', /text\/plain/);
    const text = await response.text();
    assert.match(text, /sandpiper_http_request_duration_seconds_count\{method="GET",route="\/health",status="200"\} 1/);
    assert.match(text, /sandpiper_workstreams_active 3/);
    assert.match(text, /sandpiper_gateway_subscriptions 2/);
    assert.match(text, /process_cpu_user_seconds_total/);
    // The event-loop lag series stay, sampled every EVENT_LOOP_SAMPLE_MS.
    assert.match(text, /nodejs_eventloop_lag_p99_seconds \d/);
  });

  it('maps errors to JSON without stacks or internal messages', async () => {
    const router = new Hono();
    router.get('/boom', () => {
      throw new Error('database password is hunter2');
    });
    router.get('/teapot', () => {
      throw new HttpError(403, 'insufficient scope');
    });
    router.get('/missing', () => {
      throw new GatewayError('NOT_FOUND', 'no such thing');
    });
    const app = appWith([router]);
    const boom = await app.request('/boom');
    assert.equal(boom.status, 500);
    assert.deepEqual(await boom.json(), { error: 'internal error' });
    const forbidden = await app.request('/teapot');
    assert.equal(forbidden.status, 403);
    assert.deepEqual(await forbidden.json(), { error: 'insufficient scope' });
    assert.equal((await app.request('/missing')).status, 404);
    const unknown = await app.request('/no/such/path');
    assert.equal(unknown.status, 404);
    assert.deepEqual(await unknown.json(), { error: 'not found' });
  });

  it('refuses bodies over the size limit with 413', async () => {
    const router = new Hono();
    router.post('/echo', async (context) => context.json({ length: (await context.req.text()).length }));
    const app = appWith([router], 100);
    const small = await app.request('/echo', { method: 'POST', body: 'x'.repeat(50) });
    assert.equal(small.status, 200);
    const big = await app.request('/echo', { method: 'POST', body: 'x'.repeat(5000) });
    assert.equal(big.status, 413);
    assert.deepEqual(await big.json(), { error: 'request body too large' });
    const declared = await app.request('/echo', {
      method: 'POST',
      body: 'x'.repeat(5000),
      headers: { 'content-length': '5000' },
    });
    assert.equal(declared.status, 413, 'a declared length over the limit is refused before reading');
    const bogus = await app.request('/echo', { method: 'POST', body: 'x', headers: { 'content-length': 'lots' } });
    assert.equal(bogus.status, 400);
  });
});
