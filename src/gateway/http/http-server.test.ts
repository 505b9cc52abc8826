import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Hono } from 'hono';
import { startHttpServer } from './http-server.js';

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
});
