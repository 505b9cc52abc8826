/**
 * Contract suite for ClusterStatusStore (what `sandpiper status` reads). The lease tables are written by the cluster and
 * shard code; this suite seeds their rows directly, as those writers would leave them.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { TestStores } from '../helpers/test-stores.js';

const NOW = Date.parse('2026-03-04T12:00:00Z');

async function seed(handle: TestStores): Promise<void> {
  const { stores, knex } = handle;
  await stores.services.register({ serviceType: 'channel', serviceId: 'channel-a-0001', url: 'http://a:8091' });
  await stores.services.register({
    serviceType: 'channel',
    serviceId: 'channel-b-0002',
    url: 'http://b:8091',
    metadata: { zone: 'x' },
  });
  await stores.services.register({ serviceType: 'channel', serviceId: 'channel-old-0003', url: 'http://old:8091' });
  await stores.services.register({ serviceType: 'console', serviceId: 'console-1', url: 'http://console' });
  await knex('services')
    .where({ service_id: 'channel-a-0001' })
    .update({ last_heartbeat: '2026-03-04T11:59:58', created: '2026-03-04T10:00:00' });
  await knex('services')
    .where({ service_id: 'channel-b-0002' })
    .update({ last_heartbeat: '2026-03-04T11:58:00', created: '2026-03-04T11:00:00' });
  await knex('services')
    .where({ service_id: 'channel-old-0003' })
    .update({ last_heartbeat: '2026-03-01T00:00:00', created: '2026-02-01T00:00:00' });
  await knex('shard_leases').insert([
    {
      bot: 'bot1',
      shard_id: 1,
      shard_count: 2,
      holder: 'channel-b-0002',
      expires_at: NOW - 1000,
      acquired_at: NOW - 60_000,
    },
    {
      bot: 'bot1',
      shard_id: 0,
      shard_count: 2,
      holder: 'channel-a-0001',
      expires_at: NOW + 15_000,
      acquired_at: NOW - 30_000,
    },
  ]);
  await knex('workstream_leases').insert([
    { workstream_id: 'ws1', holder: 'channel-a-0001', expires_at: NOW + 10_000, acquired_at: NOW - 5000 },
    { workstream_id: 'ws2', holder: 'channel-a-0001', expires_at: NOW + 10_000, acquired_at: NOW - 5000 },
    { workstream_id: 'ws3', holder: 'channel-a-0001', expires_at: NOW - 1, acquired_at: NOW - 50_000 },
    { workstream_id: 'ws4', holder: 'channel-gone-0004', expires_at: NOW - 20_000, acquired_at: NOW - 90_000 },
    { workstream_id: 'ws5', holder: 'channel-b-0002', expires_at: NOW, acquired_at: NOW - 15_000 },
  ]);
}

export function clusterStatusStoreContract(label: string, open: () => Promise<TestStores>): void {
  describe(`ClusterStatusStore contract (${label})`, () => {
    it('reads an empty cluster: no instances, no leases, and names the engine', async () => {
      const handle = await open();
      try {
        const snapshot = await handle.stores.clusterStatus.snapshot({ now: NOW, instancesSeenWithinMs: 3600_000 });
        assert.deepEqual(snapshot, {
          engine: label.includes('postgres') ? 'postgresql' : 'sqlite',
          instances: [],
          shardLeases: [],
          workstreamLeases: [],
        });
      } finally {
        await handle.close();
      }
    });

    it('lists channel instances seen within the window, every shard lease, and lease counts per holder at now', async () => {
      const handle = await open();
      try {
        await seed(handle);
        const snapshot = await handle.stores.clusterStatus.snapshot({ now: NOW, instancesSeenWithinMs: 3600_000 });
        assert.deepEqual(
          snapshot.instances.map((row) => [row.instanceId, row.url, row.lastHeartbeat, row.created]),
          [
            ['channel-a-0001', 'http://a:8091', '2026-03-04T11:59:58', '2026-03-04T10:00:00'],
            ['channel-b-0002', 'http://b:8091', '2026-03-04T11:58:00', '2026-03-04T11:00:00'],
          ],
        );
        assert.deepEqual(snapshot.instances[1]?.metadata, { zone: 'x' });
        assert.deepEqual(snapshot.shardLeases, [
          {
            bot: 'bot1',
            shardId: 0,
            shardCount: 2,
            holder: 'channel-a-0001',
            expiresAt: NOW + 15_000,
            acquiredAt: NOW - 30_000,
          },
          {
            bot: 'bot1',
            shardId: 1,
            shardCount: 2,
            holder: 'channel-b-0002',
            expiresAt: NOW - 1000,
            acquiredAt: NOW - 60_000,
          },
        ]);
        // A lease expiring exactly at `now` is expired: a taker-over's `expires_at < now` check is one millisecond away.
        assert.deepEqual(snapshot.workstreamLeases, [
          { holder: 'channel-a-0001', live: 2, expired: 1 },
          { holder: 'channel-b-0002', live: 0, expired: 1 },
          { holder: 'channel-gone-0004', live: 0, expired: 1 },
        ]);
        const wider = await handle.stores.clusterStatus.snapshot({ now: NOW, instancesSeenWithinMs: 7 * 86_400_000 });
        // Oldest-registered first; other service types never appear.
        assert.deepEqual(
          wider.instances.map((row) => row.instanceId),
          ['channel-old-0003', 'channel-a-0001', 'channel-b-0002'],
        );
      } finally {
        await handle.close();
      }
    });
  });
}
