import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { SignJWT } from 'jose';
import type { Hono } from 'hono';
import { createTestStores } from '../../../../test/helpers/test-stores.js';
import { createSilentLogger } from '../../../shared/logger.js';
import type { Stores } from '../../../storage/stores.js';
import { createHttpApp } from '../app.js';
import { mintServiceToken } from '../auth.js';
import { createHttpMetrics } from '../metrics.js';
import { EMPTY_MCP_HEALTH } from './health.js';
import { NOTIFY_USER_CACHE_TTL_MS, createNotifyRoutes, type NotifyDestination, type NotifySender } from './notify.js';

const SECRET = 'a-test-secret-that-is-long-enough-0123456789';
const AUDIENCE = 'turnstone-channel';

interface Sent {
  channelType: string;
  destination: NotifyDestination;
  content: string;
}

class RecordingSender implements NotifySender {
  readonly sent: Sent[] = [];
  failNext = false;
  hang = false;
  has(channelType: string): boolean {
    return channelType === 'discord';
  }
  async send(channelType: string, destination: NotifyDestination, content: string, signal: AbortSignal) {
    if (this.hang)
      await new Promise((_, reject) => signal.addEventListener('abort', () => reject(new Error('aborted'))));
    if (this.failNext) {
      this.failNext = false;
      throw new Error('platform exploded with secret xoxb-123');
    }
    this.sent.push({ channelType, destination, content });
    return {
      messageId: `m${this.sent.length}`,
      channelId: 'userId' in destination ? `dm-${destination.userId}` : destination.channelId,
    };
  }
}

async function token(
  claims: Record<string, unknown>,
  options: { secret?: string; audience?: string; expiresIn?: number | null; alg?: string; nbf?: number } = {},
): Promise<string> {
  let jwt = new SignJWT(claims)
    .setProtectedHeader({ alg: options.alg ?? 'HS256' })
    .setIssuedAt()
    .setAudience(options.audience ?? AUDIENCE);
  if (options.expiresIn !== null)
    jwt = jwt.setExpirationTime(Math.floor(Date.now() / 1000) + (options.expiresIn ?? 300));
  if (options.nbf !== undefined) jwt = jwt.setNotBefore(options.nbf);
  return jwt.sign(new TextEncoder().encode(options.secret ?? SECRET));
}

describe('POST /v1/api/notify', () => {
  let stores: Stores;
  let close: () => Promise<void>;
  let sender: RecordingSender;
  let app: Hono;
  let writeToken: string;

  before(async () => {
    ({ stores, close } = await createTestStores());
    sender = new RecordingSender();
    app = buildApp(SECRET, 200);
    const alice = await stores.users.createUser('alice');
    await stores.users.link('discord', '400000000000000001', alice.userId);
    await stores.users.createUser('loner');
    writeToken = await mintServiceToken({ secret: SECRET, audience: AUDIENCE });
  });
  after(() => close());

  function buildApp(secret: string, timeoutMs = 30_000, now?: () => number): Hono {
    const notify = createNotifyRoutes({
      jwt: { secret, audience: AUDIENCE },
      users: stores.users,
      deliveries: stores.notifyDeliveries,
      outbox: stores.notifyOutbox,
      sender,
      logger: createSilentLogger(),
      timeoutMs,
      ...(now === undefined ? {} : { now }),
    });
    return createHttpApp({
      logger: createSilentLogger(),
      metrics: createHttpMetrics(),
      health: { adapters: () => ({}), mcp: () => EMPTY_MCP_HEALTH },
      routers: [notify],
    });
  }

  function post(body: unknown, auth: string | null = `Bearer ${writeToken}`, target = app) {
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (auth !== null) headers['authorization'] = auth;
    return target.request('/v1/api/notify', {
      method: 'POST',
      headers,
      body: typeof body === 'string' ? body : JSON.stringify(body),
    });
  }

  async function expectError(response: Response | Promise<Response>, status: number, error: string): Promise<void> {
    const resolved = await response;
    assert.equal(resolved.status, status);
    assert.deepEqual(await resolved.json(), { error });
  }

  it('delivers to every linked channel of a username, title included, and records the delivery for replies', async () => {
    const wsId = 'ab'.repeat(16);
    const response = await post({ target: { username: 'alice' }, message: '  build done ', title: 'CI', ws_id: wsId });
    assert.equal(response.status, 200);
    const body = (await response.json()) as { results: unknown[] };
    assert.deepEqual(body.results, [
      {
        channel_type: 'discord',
        channel_id: '400000000000000001',
        status: 'sent',
        message_id: `m${sender.sent.length}`,
      },
    ]);
    assert.equal(sender.sent.at(-1)?.content, '**CI**\nbuild done');
    assert.deepEqual(sender.sent.at(-1)?.destination, { userId: '400000000000000001' });
    const delivery = await stores.notifyDeliveries.findByMessage('discord', `m${sender.sent.length}`);
    assert.equal(delivery?.wsId, wsId);
  });

  it('reports no_adapter, failed and timeout per target with HTTP 200', async () => {
    const slack = await post({ target: { channel_type: 'slack', channel_id: 'C1' }, message: 'hi' });
    assert.deepEqual(((await slack.json()) as { results: unknown[] }).results, [
      { channel_type: 'slack', channel_id: 'C1', status: 'no_adapter' },
    ]);
    sender.failNext = true;
    const failed = await post({ target: { channel_type: 'discord', channel_id: '300000000000000001' }, message: 'hi' });
    const failedText = await failed.text();
    assert.match(failedText, /"status":"failed"/);
    assert.doesNotMatch(failedText, /xoxb/);
    sender.hang = true;
    const slow = await post({ target: { channel_type: 'discord', channel_id: '300000000000000001' }, message: 'hi' });
    sender.hang = false;
    assert.match(await slow.text(), /"status":"timeout"/);
  });

  it('answers 404 alike for an unknown user and a user without links', async () => {
    await expectError(
      post({ target: { username: 'ghost' }, message: 'x' }),
      404,
      'target not found or has no linked channels',
    );
    await expectError(
      post({ target: { username: 'loner' }, message: 'x' }),
      404,
      'target not found or has no linked channels',
    );
  });

  it('sees a user linked meanwhile once the username cache expires', async () => {
    let clock = 1_000_000;
    const cachedApp = buildApp(SECRET, 200, () => clock);
    await expectError(
      post({ target: { username: 'latecomer' }, message: 'x' }, `Bearer ${writeToken}`, cachedApp),
      404,
      'target not found or has no linked channels',
    );
    const late = await stores.users.createUser('latecomer');
    await stores.users.link('discord', '400000000000000077', late.userId);
    await expectError(
      post({ target: { username: 'latecomer' }, message: 'x' }, `Bearer ${writeToken}`, cachedApp),
      404,
      'target not found or has no linked channels',
    );
    clock += NOTIFY_USER_CACHE_TTL_MS;
    const found = await post({ target: { username: 'latecomer' }, message: 'x' }, `Bearer ${writeToken}`, cachedApp);
    assert.equal(found.status, 200);
    assert.match(await found.text(), /"status":"sent"/);
  });

  it('rejects malformed bodies with 400 and the reference error strings', async () => {
    await expectError(post('{nope'), 400, 'invalid JSON');
    await expectError(post('[1,2]'), 400, 'request body must be a JSON object');
    await expectError(post({ target: { username: 'alice' }, message: '   ' }), 400, 'target and message are required');
    await expectError(post({ message: 'x' }), 400, 'target and message are required');
    await expectError(
      post({ target: 'alice', message: 'x' }),
      400,
      'target must have username or channel_type+channel_id',
    );
    await expectError(
      post({ target: { channel_type: 'discord' }, message: 'x' }),
      400,
      'target must have username or channel_type+channel_id',
    );
    await expectError(post({ target: { username: 'alice' }, message: 'x', ws_id: 'XYZ' }), 400, 'invalid ws_id format');
  });

  it('accepts a bare Slack channel with ws_id (reference defect 9.1 #7: no channel:user form required)', async () => {
    const slack = await post({ target: { channel_type: 'slack', channel_id: 'C1' }, message: 'x', ws_id: 'abcdef12' });
    assert.equal(slack.status, 200);
  });

  it('accepts only valid HS256 bearer tokens for the pinned audience with the write scope', async () => {
    const body = { target: { username: 'alice' }, message: 'x' };
    await expectError(post(body, null), 401, 'Unauthorized');
    await expectError(post(body, `Basic ${writeToken}`), 401, 'Unauthorized');
    await expectError(post(body, 'Bearer opaque-static-token'), 401, 'Unauthorized');
    await expectError(
      post(body, `Bearer ${await token({ scopes: 'write' }, { secret: 'another-secret-another-secret-0000' })}`),
      401,
      'Unauthorized',
    );
    await expectError(
      post(body, `Bearer ${await token({ scopes: 'write' }, { audience: 'turnstone-server' })}`),
      401,
      'Unauthorized',
    );
    await expectError(
      post(body, `Bearer ${await token({ scopes: 'write' }, { expiresIn: null })}`),
      401,
      'Unauthorized',
    );
    await expectError(
      post(body, `Bearer ${await token({ scopes: 'write' }, { expiresIn: -120 })}`),
      401,
      'Unauthorized',
    );
    await expectError(
      post(body, `Bearer ${await token({ scopes: 'write' }, { nbf: Math.floor(Date.now() / 1000) + 600 })}`),
      401,
      'Unauthorized',
    );
    await expectError(post(body, `Bearer ${await token({ scopes: 'read' })}`), 403, 'insufficient scope');
    await expectError(post(body, `Bearer ${await token({})}`), 403, 'insufficient scope');
    const viaService = await post(body, `Bearer ${await token({ scopes: 'service' })}`);
    assert.equal(viaService.status, 200);
    const withinLeeway = await post(body, `Bearer ${await token({ scopes: 'write' }, { expiresIn: -10 })}`);
    assert.equal(withinLeeway.status, 200);
  });

  it('answers 401 "authentication not configured" when no secret is set', async () => {
    await expectError(
      post({ target: { username: 'alice' }, message: 'x' }, `Bearer ${writeToken}`, buildApp('')),
      401,
      'authentication not configured',
    );
  });
});
