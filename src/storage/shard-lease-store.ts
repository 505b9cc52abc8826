/**
 * Discord shard leases (`shard_leases`, docs/architecture.md §9, ADR 0022): which instance runs which shard of a bot. A
 * lease is claimed when absent, released or expired (a compare-and-set, so two instances never both win), renewed
 * for all of a holder's rows with one UPDATE per heartbeat, and released (holder '' and expired) on a graceful stop.
 * Times are epoch milliseconds; a holder is the instance's service id.
 */

export interface ShardLease {
  bot: string;
  shardId: number;
  shardCount: number;
  /** The instance running the shard; '' once released. */
  holder: string;
  expiresAt: number;
  acquiredAt: number;
}

/** What a successful claim replaced: the lease row as it was (undefined when the shard had never been leased). */
export interface ShardClaim {
  previous: ShardLease | undefined;
}

export interface ShardLeaseStore {
  /** Every lease row of the bot, by shard id. */
  list(bot: string): Promise<ShardLease[]>;
  /**
   * Takes the shard for `holder` until `now + ttlMs` when it is free (no row, released, or expired before `now`);
   * undefined when another holder's lease is still running or another claim won the race.
   */
  claim(
    lease: { bot: string; shardId: number; shardCount: number; holder: string },
    now: number,
    ttlMs: number,
  ): Promise<ShardClaim | undefined>;
  /** Extends every lease `holder` has of the bot (one UPDATE); resolves with the shard ids it still holds. */
  renew(bot: string, holder: string, now: number, ttlMs: number): Promise<number[]>;
  /** Gives the shards up (all of the holder's, or those listed): holder '' and expired at `now`. Resolves with how many. */
  release(bot: string, holder: string, now: number, shardIds?: readonly number[]): Promise<number>;
}
