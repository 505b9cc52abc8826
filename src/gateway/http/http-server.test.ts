import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { request } from 'node:http';
import { Hono } from 'hono';
import { createSilentLogger } from '../../shared/logger.js';
import { createHttpApp } from './app.js';
import { startHttpServer } from './http-server.js';
import { createHttpMetrics } from './metrics.js';
import { EMPTY_MCP_HEALTH } from './routes/health.js';

/** POSTs over a real socket; `chunked` sends the body without a Content-Length. */
function post(url: string, body: string, chunked: boolean): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = request(
      `${url}/echo`,
      {
        method: 'POST',
        headers: chunked ? { 'transfer-encoding': 'chunked' } : { 'content-length': Buffer.byteLength(body) },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
      },
    );
    req.on('error', reject);
    if (chunked) for (let at = 0; at < body.length; at += 100) req.write(body.slice(at, at + 100));
    else req.write(body);
    req.end();
  });
}

describe('startHttpServer', () => {
  it('binds port 0, finishes in-flight requests on close, then refuses new ones', async () => {
    let release: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    let entered: () => void = () => undefined;
    const inside = new Promise<void>((resolve) => {
      entered = resolve;
    });
    const app = new Hono();
    app.get('/slow', async (context) => {
      entered();
      await gate;
      return context.text('finished');
    });
    const server = await startHttpServer(app, '127.0.0.1', 0);
    assert.ok(server.port > 0);
    const inFlight = fetch(`${server.url}/slow`).then((response) => response.text());
    await inside;
    const closed = server.close(10_000);
    release();
    assert.equal(await inFlight, 'finished');
    await closed;
    await assert.rejects(fetch(`${server.url}/slow`));
  });

  it('reads bodies over a real socket within the limit, with and without Content-Length, and refuses larger ones', async () => {
    const router = new Hono();
    router.post('/echo', async (context) => context.json({ length: (await context.req.text()).length }));
    const app = createHttpApp({
      logger: createSilentLogger(),
      metrics: createHttpMetrics({ workstreams: () => ({ active: 0, running: 0 }), subscriptions: () => 0 }),
      health: { adapters: () => ({}), mcp: () => EMPTY_MCP_HEALTH },
      routers: [router],
      maxBodyBytes: 1000,
    });
    const server = await startHttpServer(app, '127.0.0.1', 0);
    try {
      assert.deepEqual(await post(server.url, 'x'.repeat(900), false), { status: 200, text: '{"length":900}' });
      assert.deepEqual(await post(server.url, 'x'.repeat(900), true), { status: 200, text: '{"length":900}' });
      assert.equal((await post(server.url, 'x'.repeat(1500), false)).status, 413);
      assert.equal((await post(server.url, 'x'.repeat(1500), true)).status, 413);
    } finally {
      await server.close(1000);
    }
  });
});
