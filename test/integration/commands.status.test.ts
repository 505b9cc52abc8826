/**
 * `sandpiper status` in-process (runCli, as the bin runs it) on a database whose services and lease rows the test
 * seeds directly.
 */
import assert from 'node:assert/strict';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { isoFromMs } from '../../src/shared/time.js';
import { createKnex } from '../../src/storage/index.js';
import { startAdminCli, type AdminCli } from '../helpers/admin-cli.js';
import { runCliInProcess } from '../helpers/run-cli-in-process.js';

let admin: AdminCli;
const run = (...args: string[]): ReturnType<AdminCli['cli']> => admin.cli(...args);

before(async () => {
  admin = await startAdminCli('sp-status-');
});
after(() => admin.close());

async function seed(): Promise<void> {
  const knex = createKnex(`sqlite:${path.join(admin.dir, 'data', 'sandpiper.db')}`);
  const now = Date.now();
  try {
    const service = (id: string, url: string, ageMs: number): Record<string, string> => ({
      service_type: 'channel',
      service_id: id,
      url,
      metadata: '{}',
      last_heartbeat: isoFromMs(now - ageMs),
      created: isoFromMs(now - 3600_000),
    });
    await knex('services').insert([
      service('channel-web-1-aaaa0001', 'http://10.0.0.1:8091', 2000),
      { ...service('channel-web-2-bbbb0002', 'http://10.0.0.2:8091', 600_000), created: isoFromMs(now - 1800_000) },
    ]);
    await knex('shard_leases').insert([
      {
        bot: 'app',
        shard_id: 0,
        shard_count: 3,
        holder: 'channel-web-1-aaaa0001',
        expires_at: now + 60_000,
        acquired_at: now - 1000,
      },
      {
        bot: 'app',
        shard_id: 1,
        shard_count: 3,
        holder: 'channel-web-2-bbbb0002',
        expires_at: now - 500_000,
        acquired_at: now - 900_000,
      },
    ]);
    await knex('workstream_leases').insert([
      { workstream_id: 'w1', holder: 'channel-web-1-aaaa0001', expires_at: now + 60_000, acquired_at: now },
      { workstream_id: 'w2', holder: 'channel-web-1-aaaa0001', expires_at: now + 60_000, acquired_at: now },
      { workstream_id: 'w3', holder: 'channel-web-2-bbbb0002', expires_at: now - 500_000, acquired_at: now - 900_000 },
    ]);
  } finally {
    await knex.destroy();
  }
}

describe('sandpiper status', () => {
  it('says so when no instance has registered, and rejects arguments', async () => {
    const empty = await run('status');
    assert.equal(empty.code, 0, empty.stderr);
    assert.match(
      empty.stdout,
      /^database: SQLite \S+sandpiper\.db; instances: 0 alive, 0 stale \(stale after \d+s without a heartbeat\)\nno instances/,
    );
    const extra = await run('status', 'now');
    assert.equal(extra.code, 2);
    assert.match(extra.stderr, /^sandpiper: unexpected argument "now"; usage: sandpiper status \[--json\]/);
    assert.match((await runCliInProcess(['--help'])).stdout, /\n {2}sandpiper status \[--json\]\s+list the instances/);
  });

  it('lists each instance with its state, shards and workstream leases, as a table and as JSON', async () => {
    await seed();
    const table = await run('status');
    assert.equal(table.code, 0, table.stderr);
    const lines = table.stdout.trimEnd().split('\n');
    assert.match(lines[0] ?? '', /instances: 1 alive, 1 stale/);
    assert.match(lines[1] ?? '', /^INSTANCE\s+STATE\s+HEARTBEAT\s+SHARDS\s+WORKSTREAMS\s+URL$/);
    assert.match(lines[2] ?? '', /^channel-web-1-aaaa0001\s+alive\s+\ds ago\s+0\/3\s+2\s+http:\/\/10\.0\.0\.1:8091$/);
    assert.match(
      lines[3] ?? '',
      /^channel-web-2-bbbb0002\s+stale\s+10m ago\s+1\/3\(expired\)\s+0 \(\+1 expired\)\s+http:\/\/10\.0\.0\.2:8091$/,
    );
    assert.equal(
      lines[4],
      'totals: shards 1 held, 1 expired, 2 unheld (app shards 1,2); workstream leases 2 live, 1 expired',
    );
    const json = await run('status', '--json');
    const view = JSON.parse(json.stdout) as {
      database: { engine: string };
      instances: Array<{
        instance_id: string;
        host: string;
        state: string;
        shards: Array<{ shard_id: number; live: boolean }>;
        workstream_leases: unknown;
      }>;
      bots: unknown;
    };
    assert.equal(view.database.engine, 'sqlite');
    assert.deepEqual(
      view.instances.map((instance) => [
        instance.host,
        instance.state,
        instance.shards.map((shard) => [shard.shard_id, shard.live]),
        instance.workstream_leases,
      ]),
      [
        ['web-1', 'alive', [[0, true]], { live: 2, expired: 0 }],
        ['web-2', 'stale', [[1, false]], { live: 0, expired: 1 }],
      ],
    );
    assert.deepEqual(view.bots, [{ bot: 'app', shard_count: 3, held: 1, unheld_shard_ids: [1, 2] }]);
  });
});
