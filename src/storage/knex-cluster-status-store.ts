/** ClusterStatusStore on knex: one read transaction over `services`, `shard_leases` and `workstream_leases`. */
import type { Knex } from 'knex';
import { isoFromMs } from '../shared/time.js';
import type { ClusterSnapshot, ClusterStatusStore, HolderLeaseCount, InstanceRow } from './cluster-status-store.js';
import { toLease } from './knex-shard-lease-store.js';
import { isPostgres } from './db.js';
import { isRecord, parseJsonOr, text, toNumber, type DbRow } from './rows.js';
import { guard } from './storage-errors.js';

const CHANNEL = 'channel';

function toInstance(row: DbRow): InstanceRow {
  return {
    instanceId: text(row.service_id),
    url: text(row.url),
    metadata: parseJsonOr(row.metadata, {}, isRecord),
    lastHeartbeat: text(row.last_heartbeat),
    created: text(row.created),
  };
}

function toLeaseCount(row: DbRow): HolderLeaseCount {
  return { holder: text(row.holder), live: toNumber(row.live), expired: toNumber(row.expired) };
}

export class KnexClusterStatusStore implements ClusterStatusStore {
  constructor(private readonly knex: Knex) {}

  snapshot(options: { now: number; instancesSeenWithinMs: number }): Promise<ClusterSnapshot> {
    return guard('clusterStatus.snapshot', async () => {
      const postgres = isPostgres(this.knex);
      // REPEATABLE READ on PostgreSQL: the three reads see one moment, so a takeover is never counted twice or not at all.
      const read = (trx: Knex.Transaction): Promise<ClusterSnapshot> => this.read(trx, options, postgres);
      return postgres
        ? this.knex.transaction(read, { isolationLevel: 'repeatable read' })
        : this.knex.transaction(read);
    });
  }

  private async read(
    trx: Knex.Transaction,
    options: { now: number; instancesSeenWithinMs: number },
    postgres: boolean,
  ): Promise<ClusterSnapshot> {
    const cutoff = isoFromMs(options.now - options.instancesSeenWithinMs);
    const instances = (await trx('services')
      .where({ service_type: CHANNEL })
      .andWhere('last_heartbeat', '>=', cutoff)
      .orderBy([{ column: 'created' }, { column: 'service_id' }])) as DbRow[];
    const shards = (await trx('shard_leases').orderBy([{ column: 'bot' }, { column: 'shard_id' }])) as DbRow[];
    const counts = (await trx('workstream_leases')
      .select('holder')
      .select(trx.raw('SUM(CASE WHEN expires_at > ? THEN 1 ELSE 0 END) AS live', [options.now]))
      .select(trx.raw('SUM(CASE WHEN expires_at > ? THEN 0 ELSE 1 END) AS expired', [options.now]))
      .groupBy('holder')
      .orderBy('holder')) as DbRow[];
    return {
      engine: postgres ? 'postgresql' : 'sqlite',
      instances: instances.map(toInstance),
      shardLeases: shards.map(toLease),
      workstreamLeases: counts.map(toLeaseCount),
    };
  }
}
