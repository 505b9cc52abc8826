/** `POST /v1/api/notify` with `Idempotency-Key`: one delivery per key and subject, 422 for another body, 409 while in flight. */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Hono } from 'hono';
import type { Knex } from 'knex';
import { createTestStores } from '../../../../test/helpers/test-stores.js';
import { createSilentLogger } from '../../../shared/logger.js';
import type { Stores } from '../../../storage/stores.js';
import { createHttpApp } from '../app.js';
import { mintServiceToken } from '../auth.js';
import { createHttpMetrics } from '../metrics.js';
import { EMPTY_MCP_HEALTH } from './health.js';
import { createNotifyRoutes, type NotifyDestination, type NotifySender } from './notify.js';

const SECRET = 'a-test-secret-that-is-long-enough-0123456789';
const AUDIENCE = 'turnstone-channel';

class CountingSender implements NotifySender {
  readonly sent: Array<{ destination: NotifyDestination; content: string }> = [];
  /** While set, send waits for it (a request still being delivered). */
  gate: Promise<void> | undefined;
  has(channelType: string): boolean {
    return channelType === 'discord';
  }
  async send(_channelType: string, destination: NotifyDestination, content: string) {
    await this.gate;
    this.sent.push({ destination, content });
    return {
      messageId: `m${this.sent.length}`,
      channelId: 'userId' in destination ? `dm-${destination.userId}` : destination.channelId,
    };
  }
}

describe('POST /v1/api/notify with Idempotency-Key', () => {
  let stores: Stores;
  let close: () => Promise<void>;
  let knex: Knex;
  let sender: CountingSender;
  let app: Hono;
  let ciToken: string;
  let otherToken: string;

  before(async () => {
    ({ stores, close, knex } = await createTestStores());
    sender = new CountingSender();
    const notify = createNotifyRoutes({
      jwt: { secret: SECRET, audience: AUDIENCE },
      users: stores.users,
      deliveries: stores.notifyDeliveries,
      outbox: stores.notifyOutbox,
      sender,
      logger: createSilentLogger(),
    });
    app = createHttpApp({
      logger: createSilentLogger(),
      metrics: createHttpMetrics(),
      health: { adapters: () => ({}), mcp: () => EMPTY_MCP_HEALTH },
      routers: [notify],
    });
    const alice = await stores.users.createUser('alice');
    await stores.users.link('discord', '400000000000000001', alice.userId);
    ciToken = await mintServiceToken({ secret: SECRET, audience: AUDIENCE }, { subject: 'ci' });
    otherToken = await mintServiceToken({ secret: SECRET, audience: AUDIENCE }, { subject: 'monitoring' });
  });
  after(() => close());

  function post(body: unknown, key: string | undefined, token = ciToken): Promise<Response> {
    const headers: Record<string, string> = { 'content-type': 'application/json', authorization: `Bearer ${token}` };
    if (key !== undefined) headers['idempotency-key'] = key;
    return Promise.resolve(app.request('/v1/api/notify', { method: 'POST', headers, body: JSON.stringify(body) }));
  }

  it('delivers once and answers a retry with the first result', async () => {
    const before = sender.sent.length;
    const body = { target: { username: 'alice' }, message: 'deploy 41 finished' };
    const first = await post(body, 'deploy-41');
    assert.equal(first.status, 200);
    assert.equal(first.headers.get('idempotent-replayed'), null);
    const firstBody = await first.text();
    // Whitespace or key order of the JSON does not make it another request.
    const retry = await app.request('/v1/api/notify', {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        authorization: `Bearer ${ciToken}`,
        'idempotency-key': 'deploy-41',
      },
      body: '{ "message": "deploy 41 finished",  "target": {"username": "alice"} }',
    });
    assert.equal(retry.status, 200);
    assert.equal(retry.headers.get('idempotent-replayed'), 'true');
    assert.equal(await retry.text(), firstBody);
    assert.equal(sender.sent.length - before, 1, 'one delivery for two requests');
    assert.match(firstBody, /"status":"sent","message_id":"m\d+"/);
  });

  it('refuses the key with another body (422), and keeps keys of different subjects apart', async () => {
    const before = sender.sent.length;
    assert.equal((await post({ target: { username: 'alice' }, message: 'first text' }, 'shared-key')).status, 200);
    const changed = await post({ target: { username: 'alice' }, message: 'second text' }, 'shared-key');
    assert.equal(changed.status, 422);
    assert.deepEqual(await changed.json(), { error: 'Idempotency-Key was already used with a different request' });
    const otherCaller = await post({ target: { username: 'alice' }, message: 'second text' }, 'shared-key', otherToken);
    assert.equal(otherCaller.status, 200);
    assert.equal(sender.sent.length - before, 2);
  });

  it('answers 409 while the first request with the key is still being delivered', async () => {
    let open!: () => void;
    sender.gate = new Promise((resolve) => (open = resolve));
    const body = { target: { channel_type: 'discord', channel_id: '300000000000000001' }, message: 'slow one' };
    const first = post(body, 'in-flight');
    // The first request has accepted its rows (and is waiting at the platform) once its key is in the database.
    for (let i = 0; !(await knex('notify_idempotency').where({ idempotency_key: 'in-flight' }).first()); i += 1) {
      if (i > 500) assert.fail('the first request never accepted its rows');
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    const conflict = await post(body, 'in-flight');
    assert.equal(conflict.status, 409);
    assert.deepEqual(await conflict.json(), {
      error: 'a request with this Idempotency-Key is still being delivered; retry shortly',
    });
    open();
    sender.gate = undefined;
    assert.equal((await first).status, 200);
    const replay = await post(body, 'in-flight');
    assert.equal(replay.headers.get('idempotent-replayed'), 'true');
  });

  it('keeps the no_adapter answer of a keyed request too, and rejects a malformed key', async () => {
    const body = { target: { channel_type: 'slack', channel_id: 'C1' }, message: 'nobody listens' };
    const first = await post(body, 'no-adapter');
    assert.deepEqual(await first.json(), {
      results: [{ channel_type: 'slack', channel_id: 'C1', status: 'no_adapter' }],
    });
    assert.equal((await post(body, 'no-adapter')).headers.get('idempotent-replayed'), 'true');
    const bad = await post(body, 'has spaces in it');
    assert.equal(bad.status, 400);
    assert.deepEqual(await bad.json(), { error: 'invalid Idempotency-Key: 1 to 255 visible ASCII characters' });
    assert.equal((await post(body, 'x'.repeat(256))).status, 400);
  });
});
