/**
 * What `sandpiper status` reads (docs/architecture.md §9, ADR 0023): the registered instances (`services` rows of type
 * 'channel'), the Discord shard leases and the workstream lease counts per holder, in one consistent read. Read-only:
 * the leases are written by the cluster code (workstream leases) and the Discord adapter (shard leases).
 */
import type { ShardLease } from './shard-lease-store.js';

export type DatabaseEngine = 'sqlite' | 'postgresql';

export interface InstanceRow {
  /** The service id, `channel-<host>-<hex>` (the `holder` of its leases). */
  instanceId: string;
  url: string;
  metadata: Record<string, unknown>;
  /** UTC ISO-8601 as stored. */
  lastHeartbeat: string;
  created: string;
}

/** A `shard_leases` row as the status view reads it. */
export type ShardLeaseRow = ShardLease;

export interface HolderLeaseCount {
  holder: string;
  /** Leases whose `expires_at` is still ahead of `now`. */
  live: number;
  expired: number;
}

export interface ClusterSnapshot {
  engine: DatabaseEngine;
  instances: InstanceRow[];
  shardLeases: ShardLeaseRow[];
  workstreamLeases: HolderLeaseCount[];
}

export interface ClusterStatusStore {
  /**
   * Instances whose last heartbeat is at most `instancesSeenWithinMs` old (oldest-registered first), every shard lease
   * (by bot and shard), and the workstream leases counted per holder as live or expired at `now` (epoch ms).
   */
  snapshot(options: { now: number; instancesSeenWithinMs: number }): Promise<ClusterSnapshot>;
}
