import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createTestStores } from '../../../test/helpers/test-stores.js';
import { createSilentLogger } from '../../shared/logger.js';
import type { Stores } from '../../storage/stores.js';
import { createHttpApp } from './app.js';
import { mintServiceToken } from './auth.js';
import { startHttpServer, type RunningHttpServer } from './http-server.js';
import { createHttpMetrics } from './metrics.js';
import { createFastRoute } from './node-fast-route.js';
import { EMPTY_MCP_HEALTH } from './routes/health.js';
import { createNotifyHandler, notifyFastRouteOf, notifyRoutesOf, type NotifySender } from './routes/notify.js';

const SECRET = 'a-test-secret-that-is-long-enough-0123456789';
const AUDIENCE = 'turnstone-channel';
const sender: NotifySender = { has: () => false, send: () => Promise.reject(new Error('no adapter')) };

describe('notify Node fast path', () => {
  let stores: Stores;
  let close: () => Promise<void>;
  let fast: RunningHttpServer;
  let hono: RunningHttpServer;
  let token: string;

  before(async () => {
    ({ stores, close } = await createTestStores());
    const logger = createSilentLogger();
    const metrics = createHttpMetrics();
    const handler = createNotifyHandler({ jwt: { secret: SECRET, audience: AUDIENCE }, users: stores.users, deliveries: stores.notifyDeliveries, outbox: stores.notifyOutbox, sender, logger });
    const app = createHttpApp({ logger, metrics, health: { adapters: () => ({}), mcp: () => EMPTY_MCP_HEALTH }, routers: [notifyRoutesOf(handler)], maxBodyBytes: 1000 });
    fast = await startHttpServer(app, '127.0.0.1', 0, [createFastRoute(notifyFastRouteOf(handler), { logger, metrics, maxBodyBytes: 1000 })]);
    hono = await startHttpServer(app, '127.0.0.1', 0);
    token = await mintServiceToken({ secret: SECRET, audience: AUDIENCE });
  });
  after(async () => {
    await fast.close();
    await hono.close();
    await close();
  });

  async function both(body: string, auth: string): Promise<void> {
    const call = async (url: string) => {
      const response = await fetch(`${url}/v1/api/notify`, { method: 'POST', headers: { authorization: auth, 'content-type': 'application/json' }, body });
      return { status: response.status, type: response.headers.get('content-type'), body: await response.text() };
    };
    assert.deepEqual(await call(fast.url), await call(hono.url));
  }

  it('answers every input exactly as the Hono route does', async () => {
    const channel = JSON.stringify({ target: { channel_type: 'discord', channel_id: '1' }, message: 'hi' });
    await both(channel, `Bearer ${token}`);
    await both(channel, 'Bearer not.a-token');
    await both('{not json', `Bearer ${token}`);
    await both(JSON.stringify({ target: { username: 'nobody' }, message: 'hi' }), `Bearer ${token}`);
    await both('x'.repeat(1500), `Bearer ${token}`);
  });
});
