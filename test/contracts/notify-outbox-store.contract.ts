/** Contract suite for NotifyOutboxStore: accepted rows, idempotency keys per subject, claims with leases, purge. */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { NewOutboxEntry } from '../../src/storage/index.js';
import { isoFromMs } from '../../src/shared/time.js';
import { useStores, type StoresFactory } from './stores-factory.js';

const DAY_MS = 24 * 3600 * 1000;

function entry(overrides: Partial<NewOutboxEntry> = {}): NewOutboxEntry {
  return {
    channelType: 'discord',
    channelId: '400000000000000001',
    destination: { kind: 'user', id: '400000000000000001' },
    content: '**CI**\ndeploy finished',
    wsId: '',
    status: 'accepted',
    ...overrides,
  };
}

export function notifyOutboxStoreContract(label: string, factory: StoresFactory): void {
  describe(`NotifyOutboxStore contract (${label})`, () => {
    const stores = useStores(factory);
    const notBefore = (): string => isoFromMs(Date.now() - DAY_MS);

    it('accepts a request as rows in target order, and settles them', async () => {
      const outbox = stores().notifyOutbox;
      const accepted = await outbox.accept({
        entries: [entry(), entry({ channelType: 'slack', status: 'no_adapter' })],
        leaseMs: 60_000,
        keyNotBefore: notBefore(),
      });
      assert.equal(accepted.kind, 'accepted');
      assert.deepEqual(
        accepted.entries.map((row) => [row.position, row.channelType, row.status, row.attempts]),
        [
          [0, 'discord', 'accepted', 1],
          [1, 'slack', 'no_adapter', 0],
        ],
      );
      const first = accepted.entries[0];
      assert.ok(first);
      assert.deepEqual(first.destination, { kind: 'user', id: '400000000000000001' });
      await outbox.settle(first.outboxId, { status: 'sent', messageId: 'm1', deliveredChannelId: 'dm-1' });
      // Not due (leased by the route), and once settled never due again.
      assert.deepEqual(await outbox.claimDue(10, 60_000), []);
    });

    it('returns the first request for a reused key, per subject, without inserting', async () => {
      const outbox = stores().notifyOutbox;
      const claim = { subject: 'ci-bot', key: 'deploy-42', fingerprint: 'f1' };
      const first = await outbox.accept({
        entries: [entry()],
        idempotency: claim,
        leaseMs: 60_000,
        keyNotBefore: notBefore(),
      });
      assert.equal(first.kind, 'accepted');
      const row = first.entries[0];
      assert.ok(row);
      await outbox.settle(row.outboxId, { status: 'sent', messageId: 'm7', deliveredChannelId: 'dm-7' });
      const again = await outbox.accept({
        entries: [entry(), entry()],
        idempotency: { ...claim, fingerprint: 'f2' },
        leaseMs: 60_000,
        keyNotBefore: notBefore(),
      });
      assert.equal(again.kind, 'existing');
      assert.equal(again.requestId, first.requestId);
      assert.equal(again.kind === 'existing' ? again.fingerprint : '', 'f1');
      assert.deepEqual(
        again.entries.map((e) => [e.status, e.messageId, e.deliveredChannelId]),
        [['sent', 'm7', 'dm-7']],
      );
      const otherCaller = await outbox.accept({
        entries: [entry()],
        idempotency: { ...claim, subject: 'other-bot' },
        leaseMs: 60_000,
        keyNotBefore: notBefore(),
      });
      assert.equal(otherCaller.kind, 'accepted', 'keys of different subjects never collide');
    });

    it('answers one of two racing requests with the same key by the other', async () => {
      const outbox = stores().notifyOutbox;
      const claim = { subject: 'racer', key: 'same', fingerprint: 'f' };
      const [a, b] = await Promise.all([
        outbox.accept({ entries: [entry()], idempotency: claim, leaseMs: 60_000, keyNotBefore: notBefore() }),
        outbox.accept({ entries: [entry()], idempotency: claim, leaseMs: 60_000, keyNotBefore: notBefore() }),
      ]);
      assert.deepEqual([a.kind, b.kind].sort(), ['accepted', 'existing']);
      assert.equal(a.requestId, b.requestId);
    });

    it('treats a key older than the window as unused', async () => {
      const outbox = stores().notifyOutbox;
      const claim = { subject: 'old', key: 'k', fingerprint: 'f' };
      const first = await outbox.accept({
        entries: [entry({ status: 'no_adapter' })],
        idempotency: claim,
        leaseMs: 0,
        keyNotBefore: notBefore(),
      });
      const later = await outbox.accept({
        entries: [entry({ status: 'no_adapter' })],
        idempotency: claim,
        leaseMs: 0,
        keyNotBefore: isoFromMs(Date.now() + 60_000),
      });
      assert.equal(later.kind, 'accepted');
      assert.notEqual(later.requestId, first.requestId);
    });

    it('claims rows whose lease passed once, retries them later, and purges settled rows', async () => {
      const outbox = stores().notifyOutbox;
      const accepted = await outbox.accept({
        entries: [entry({ content: 'recover me' })],
        leaseMs: 0,
        keyNotBefore: notBefore(),
      });
      const [claimedA, claimedB] = await Promise.all([outbox.claimDue(10, 60_000), outbox.claimDue(10, 60_000)]);
      const claimed = [...(claimedA ?? []), ...(claimedB ?? [])].filter((row) => row.content === 'recover me');
      assert.equal(claimed.length, 1, 'a row is claimed by one caller only');
      assert.equal(claimed[0]?.attempts, 2);
      assert.equal(claimed[0]?.requestId, accepted.requestId);
      assert.deepEqual(
        (await outbox.claimDue(10, 60_000)).filter((row) => row.content === 'recover me'),
        [],
        'leased again',
      );
      await outbox.retryLater(claimed[0]?.outboxId ?? '', 0);
      const retried = (await outbox.claimDue(10, 60_000)).filter((row) => row.content === 'recover me');
      assert.equal(retried[0]?.attempts, 3);
      await outbox.settle(retried[0]?.outboxId ?? '', { status: 'given_up' });
      assert.ok((await outbox.purge(isoFromMs(Date.now() + 60_000))) >= 1);
      const reused = await outbox.accept({
        entries: [],
        idempotency: { subject: 'ci-bot', key: 'deploy-42', fingerprint: 'f1' },
        leaseMs: 0,
        keyNotBefore: notBefore(),
      });
      assert.equal(reused.kind, 'accepted', 'purged keys are gone');
    });
  });
}
