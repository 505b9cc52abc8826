/** The status view: alive/stale/unregistered instances, their shards and lease counts, unheld shards and totals. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ClusterSnapshot } from '../../storage/index.js';
import { clusterStatusView } from './admin-status.js';

const NOW = Date.parse('2026-03-04T12:00:00Z');

const snapshot: ClusterSnapshot = {
  engine: 'postgresql',
  instances: [
    {
      instanceId: 'channel-web-1-a1b2c3d4',
      url: 'http://10.0.0.1:8091',
      metadata: {},
      lastHeartbeat: '2026-03-04T11:59:57',
      created: '2026-03-04T09:00:00',
    },
    {
      instanceId: 'channel-web-2-0badf00d',
      url: 'http://10.0.0.2:8091',
      metadata: {},
      lastHeartbeat: '2026-03-04T11:59:00',
      created: '2026-03-04T09:00:01',
    },
  ],
  shardLeases: [
    {
      bot: 'app',
      shardId: 0,
      shardCount: 3,
      holder: 'channel-web-1-a1b2c3d4',
      expiresAt: NOW + 12_000,
      acquiredAt: NOW - 60_000,
    },
    {
      bot: 'app',
      shardId: 1,
      shardCount: 3,
      holder: 'channel-web-2-0badf00d',
      expiresAt: NOW - 45_000,
      acquiredAt: NOW - 600_000,
    },
  ],
  workstreamLeases: [
    { holder: 'channel-web-1-a1b2c3d4', live: 7, expired: 0 },
    { holder: 'channel-web-2-0badf00d', live: 0, expired: 4 },
    { holder: 'channel-gone-ffff0000', live: 0, expired: 2 },
  ],
};

describe('clusterStatusView', () => {
  it('classifies instances by heartbeat age and lists what each holds', () => {
    const view = clusterStatusView(snapshot, NOW, 15);
    assert.deepEqual(
      view.instances.map((instance) => [
        instance.instance_id,
        instance.host,
        instance.state,
        instance.heartbeat_age_seconds,
      ]),
      [
        ['channel-web-1-a1b2c3d4', 'web-1', 'alive', 3],
        ['channel-web-2-0badf00d', 'web-2', 'stale', 60],
        ['channel-gone-ffff0000', 'gone', 'unregistered', null],
      ],
    );
    assert.deepEqual(view.instances[0]?.shards, [
      { bot: 'app', shard_id: 0, shard_count: 3, live: true, expires_in_seconds: 12, acquired: '2026-03-04T11:59:00' },
    ]);
    assert.deepEqual(
      view.instances[1]?.shards.map((shard) => [shard.shard_id, shard.live, shard.expires_in_seconds]),
      [[1, false, -45]],
    );
    assert.deepEqual(view.instances[1]?.workstream_leases, { live: 0, expired: 4 });
    assert.equal(view.instances[2]?.url, null);
  });

  it('counts held, expired and unheld shards per bot and the totals', () => {
    const view = clusterStatusView(snapshot, NOW, 15);
    assert.deepEqual(view.bots, [{ bot: 'app', shard_count: 3, held: 1, unheld_shard_ids: [1, 2] }]);
    assert.deepEqual(view.totals, {
      instances: 3,
      alive: 1,
      stale: 2,
      shards: { held: 1, expired: 1, unheld: 2 },
      workstream_leases: { live: 7, expired: 6 },
    });
    assert.deepEqual(
      [view.database, view.generated_at, view.stale_after_seconds],
      [{ engine: 'postgresql' }, '2026-03-04T12:00:00', 15],
    );
  });

  it('a longer stale threshold keeps a slow heartbeat alive', () => {
    const view = clusterStatusView(snapshot, NOW, 90);
    assert.deepEqual(
      view.instances.map((instance) => instance.state),
      ['alive', 'alive', 'unregistered'],
    );
  });
});
