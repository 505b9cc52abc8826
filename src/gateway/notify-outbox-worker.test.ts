/** The outbox worker on a real database: it delivers rows left accepted, retries failures and gives up with a log line. */
import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import { createTestStores } from '../../test/helpers/test-stores.js';
import { createLogger } from '../shared/logger.js';
import type { Stores } from '../storage/stores.js';
import type { NotifyDestination, NotifySender } from './http/routes/notify.js';
import { isoFromMs } from '../shared/time.js';
import { createNotifyOutboxWorker } from './notify-outbox-worker.js';

class FlakySender implements NotifySender {
  readonly sent: Array<{ destination: NotifyDestination; content: string }> = [];
  failures = 0;
  has(channelType: string): boolean {
    return channelType === 'discord';
  }
  async send(_channelType: string, destination: NotifyDestination, content: string) {
    await Promise.resolve();
    if (this.failures > 0) {
      this.failures -= 1;
      throw new Error('discord answered 503');
    }
    this.sent.push({ destination, content });
    return {
      messageId: `m${this.sent.length}`,
      channelId: 'userId' in destination ? `dm-${destination.userId}` : destination.channelId,
    };
  }
}

describe('notify outbox worker', () => {
  let stores: Stores;
  let close: () => Promise<void>;
  const sender = new FlakySender();
  let logs = '';
  const stream = new PassThrough();
  stream.on('data', (chunk: Buffer) => (logs += chunk.toString()));

  before(async () => {
    ({ stores, close } = await createTestStores());
  });
  after(() => close());

  function worker(maxAttempts = 3) {
    return createNotifyOutboxWorker(
      {
        outbox: stores.notifyOutbox,
        deliveries: stores.notifyDeliveries,
        sender,
        logger: createLogger({ format: 'json', destination: stream }),
        timeoutMs: 1_000,
      },
      { maxAttempts, baseDelayMs: 0 },
    );
  }

  async function leftBehind(content: string, wsId = ''): Promise<void> {
    // As a process killed between accept and send leaves it: accepted, lease passed.
    await stores.notifyOutbox.accept({
      entries: [
        {
          channelType: 'discord',
          channelId: 'u1',
          destination: { kind: 'user', id: 'u1' },
          content,
          wsId,
          status: 'accepted',
        },
      ],
      leaseMs: 0,
      keyNotBefore: isoFromMs(Date.now()),
    });
  }

  it('delivers a row a dead process left accepted, once, and records it for replies', async () => {
    await leftBehind('left behind', 'abcdef0123456789');
    const w = worker();
    assert.equal(await w.sweep(), 1);
    assert.deepEqual(
      sender.sent.map((s) => s.content),
      ['left behind'],
    );
    assert.equal(await w.sweep(), 0, 'a sent row is never sent again');
    assert.equal(sender.sent.length, 1);
    assert.equal((await stores.notifyDeliveries.findByMessage('discord', 'm1'))?.wsId, 'abcdef0123456789');
    assert.match(logs, /"msg":"notify.outbox.delivered"/);
  });

  it('retries a failing row with backoff and gives up after the limit with a log line', async () => {
    await leftBehind('flaky');
    sender.failures = 1;
    const w = worker(3);
    await w.sweep(); // attempt 2 fails (the route's attempt was 1)
    assert.equal(sender.sent.length, 1);
    await w.sweep(); // attempt 3 succeeds
    assert.deepEqual(
      sender.sent.map((s) => s.content),
      ['left behind', 'flaky'],
    );

    await leftBehind('hopeless');
    sender.failures = 10;
    await w.sweep();
    await w.sweep();
    assert.equal(await w.sweep(), 0, 'given up: no more attempts');
    assert.equal(sender.sent.length, 2);
    assert.match(logs, /"attempts":3,"reason":"discord answered 503","msg":"notify.outbox.given_up"/);
    sender.failures = 0;
  });

  it('leaves a row for a platform without a running adapter to retry later', async () => {
    await stores.notifyOutbox.accept({
      entries: [
        {
          channelType: 'slack',
          channelId: 'C1',
          destination: { kind: 'channel', id: 'C1' },
          content: 'later',
          wsId: '',
          status: 'accepted',
        },
      ],
      leaseMs: 0,
      keyNotBefore: isoFromMs(Date.now()),
    });
    const w = worker(2);
    await w.sweep();
    await w.sweep();
    assert.match(logs, /"reason":"no slack adapter","msg":"notify.outbox.given_up"/);
  });
});
