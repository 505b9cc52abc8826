/**
 * ShardLeaseStore on knex (SQLite and PostgreSQL): claims are an INSERT … ON CONFLICT DO NOTHING for a shard never
 * leased, else a conditional UPDATE on the row as read (same holder and expiry, expired or released), so of two racing
 * instances exactly one wins; renewals are one UPDATE of the holder's rows.
 */
import type { Knex } from 'knex';
import { text, toNumber, type DbRow } from './rows.js';
import type { ShardClaim, ShardLease, ShardLeaseStore } from './shard-lease-store.js';
import { guard } from './storage-errors.js';

const TABLE = 'shard_leases';

/** Maps a `shard_leases` row (also read by the cluster-status store). */
export function toLease(row: DbRow): ShardLease {
  return {
    bot: text(row.bot),
    shardId: toNumber(row.shard_id),
    shardCount: toNumber(row.shard_count),
    holder: text(row.holder),
    expiresAt: toNumber(row.expires_at),
    acquiredAt: toNumber(row.acquired_at),
  };
}

export class KnexShardLeaseStore implements ShardLeaseStore {
  constructor(private readonly knex: Knex) {}

  list(bot: string): Promise<ShardLease[]> {
    return guard('shardLeases.list', async () => {
      const rows = (await this.knex(TABLE).where({ bot }).orderBy('shard_id')) as DbRow[];
      return rows.map(toLease);
    });
  }

  claim(
    lease: { bot: string; shardId: number; shardCount: number; holder: string },
    now: number,
    ttlMs: number,
  ): Promise<ShardClaim | undefined> {
    return guard('shardLeases.claim', async () => {
      const key = { bot: lease.bot, shard_id: lease.shardId };
      const fresh = { shard_count: lease.shardCount, holder: lease.holder, expires_at: now + ttlMs, acquired_at: now };
      const row = (await this.knex(TABLE).where(key).first()) as DbRow | undefined;
      if (!row) {
        const inserted = (await this.knex(TABLE)
          .insert({ ...key, ...fresh })
          .onConflict(['bot', 'shard_id'])
          .ignore()
          .returning('shard_id')) as unknown[];
        return inserted.length > 0 ? { previous: undefined } : undefined;
      }
      const previous = toLease(row);
      if (previous.holder !== '' && previous.holder !== lease.holder && previous.expiresAt >= now) return undefined;
      const changed = await this.knex(TABLE)
        .where({ ...key, holder: previous.holder, expires_at: previous.expiresAt })
        .update(fresh);
      return changed > 0 ? { previous } : undefined;
    });
  }

  renew(bot: string, holder: string, now: number, ttlMs: number): Promise<number[]> {
    return guard('shardLeases.renew', async () => {
      if (holder === '') return [];
      const rows = (await this.knex(TABLE)
        .where({ bot, holder })
        .update({ expires_at: now + ttlMs })
        .returning('shard_id')) as DbRow[];
      return rows.map((row) => toNumber(row.shard_id)).sort((a, b) => a - b);
    });
  }

  release(bot: string, holder: string, now: number, shardIds?: readonly number[]): Promise<number> {
    return guard('shardLeases.release', async () => {
      if (holder === '') return 0;
      const query = this.knex(TABLE).where({ bot, holder });
      if (shardIds !== undefined) query.whereIn('shard_id', [...shardIds]);
      return query.update({ holder: '', expires_at: now });
    });
  }
}
