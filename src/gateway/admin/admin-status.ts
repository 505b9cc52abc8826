/**
 * Admin view of the cluster (`sandpiper status`, `GET /v1/api/admin/status`; ADR 0023): every instance with its
 * heartbeat age and state, the Discord shards it holds and its workstream lease counts, plus totals and the engine.
 * The same snake_case object for the CLI's `--json` and the endpoint.
 */
import { isoFromMs } from '../../shared/time.js';
import type {
  ClusterSnapshot,
  ClusterStatusStore,
  DatabaseEngine,
  InstanceRow,
  ShardLeaseRow,
} from '../../storage/index.js';
import { ageSeconds } from './admin-input.js';

/** Without `cluster.lease_ttl_s`: three beats of the registry's 30 s heartbeat. */
export const DEFAULT_STALE_AFTER_S = 90;
/** Instances that stopped heartbeating more than a day ago (killed, never deregistered) are no longer listed. */
export const INSTANCES_SEEN_WITHIN_MS = 24 * 3600 * 1000;

export type InstanceState = 'alive' | 'stale' | 'unregistered';

export interface ShardView {
  bot: string;
  shard_id: number;
  shard_count: number;
  /** False once the lease expired: the shard is free for another instance to take over. */
  live: boolean;
  /** Seconds until the lease expires (negative: expired that long ago). */
  expires_in_seconds: number;
  acquired: string;
}

export interface InstanceView {
  instance_id: string;
  host: string;
  url: string | null;
  /** alive: heartbeat within `stale_after_seconds`; stale: older; unregistered: holds leases but has no services row. */
  state: InstanceState;
  last_heartbeat: string | null;
  heartbeat_age_seconds: number | null;
  started: string | null;
  shards: ShardView[];
  workstream_leases: { live: number; expired: number };
}

export interface BotShardsView {
  bot: string;
  shard_count: number;
  held: number;
  /** Shards of the bot without a live lease (nobody connects them until an instance takes them). */
  unheld_shard_ids: number[];
}

export interface ClusterStatusView {
  database: { engine: DatabaseEngine };
  generated_at: string;
  stale_after_seconds: number;
  instances: InstanceView[];
  bots: BotShardsView[];
  totals: {
    instances: number;
    alive: number;
    stale: number;
    shards: { held: number; expired: number; unheld: number };
    workstream_leases: { live: number; expired: number };
  };
}

/** The host part of `channel-<host>-<hex>`; the URL's host for an id of another shape. */
function hostOf(instanceId: string, url: string | null): string {
  const match = /^channel-(.+)-[0-9a-f]+$/.exec(instanceId);
  if (match?.[1]) return match[1];
  try {
    return url ? new URL(url).hostname : '';
  } catch {
    return '';
  }
}

function shardView(lease: ShardLeaseRow, now: number): ShardView {
  return {
    bot: lease.bot,
    shard_id: lease.shardId,
    shard_count: lease.shardCount,
    live: lease.expiresAt > now,
    expires_in_seconds: Math.round((lease.expiresAt - now) / 1000),
    acquired: isoFromMs(lease.acquiredAt),
  };
}

function stateOf(age: number | null, staleAfter: number): InstanceState {
  if (age === null) return 'unregistered';
  return age <= staleAfter ? 'alive' : 'stale';
}

function instanceView(
  id: string,
  row: InstanceRow | undefined,
  snapshot: ClusterSnapshot,
  now: number,
  staleAfter: number,
): InstanceView {
  const age = row ? ageSeconds(row.lastHeartbeat, now) : null;
  const counts = snapshot.workstreamLeases.find((entry) => entry.holder === id);
  const url = row?.url ?? null;
  return {
    instance_id: id,
    host: hostOf(id, url),
    url,
    state: stateOf(age, staleAfter),
    last_heartbeat: row?.lastHeartbeat ?? null,
    heartbeat_age_seconds: age,
    started: row?.created ?? null,
    shards: snapshot.shardLeases.filter((lease) => lease.holder === id).map((lease) => shardView(lease, now)),
    workstream_leases: { live: counts?.live ?? 0, expired: counts?.expired ?? 0 },
  };
}

function botShards(leases: readonly ShardLeaseRow[], now: number): BotShardsView[] {
  const bots = [...new Set(leases.map((lease) => lease.bot))];
  return bots.map((bot) => {
    const own = leases.filter((lease) => lease.bot === bot);
    const count = Math.max(...own.map((lease) => lease.shardCount));
    const held = new Set(
      own.filter((lease) => lease.expiresAt > now && lease.shardId < count).map((lease) => lease.shardId),
    );
    const unheld = Array.from({ length: count }, (_, index) => index).filter((shard) => !held.has(shard));
    return { bot, shard_count: count, held: held.size, unheld_shard_ids: unheld };
  });
}

/** Builds the view from one snapshot; instances holding leases without a services row are listed as `unregistered`. */
export function clusterStatusView(
  snapshot: ClusterSnapshot,
  now: number,
  staleAfterSeconds: number,
): ClusterStatusView {
  const registered = new Map(snapshot.instances.map((row) => [row.instanceId, row]));
  const holders = [
    ...snapshot.shardLeases.map((lease) => lease.holder),
    ...snapshot.workstreamLeases.map((entry) => entry.holder),
  ];
  const ids = [...registered.keys(), ...[...new Set(holders)].filter((holder) => !registered.has(holder)).sort()];
  const instances = ids.map((id) => instanceView(id, registered.get(id), snapshot, now, staleAfterSeconds));
  const bots = botShards(snapshot.shardLeases, now);
  const liveShards = snapshot.shardLeases.filter((lease) => lease.expiresAt > now).length;
  return {
    database: { engine: snapshot.engine },
    generated_at: isoFromMs(now),
    stale_after_seconds: staleAfterSeconds,
    instances,
    bots,
    totals: {
      instances: instances.length,
      alive: instances.filter((instance) => instance.state === 'alive').length,
      stale: instances.filter((instance) => instance.state !== 'alive').length,
      shards: {
        held: liveShards,
        expired: snapshot.shardLeases.length - liveShards,
        unheld: bots.reduce((sum, bot) => sum + bot.unheld_shard_ids.length, 0),
      },
      workstream_leases: {
        live: snapshot.workstreamLeases.reduce((sum, entry) => sum + entry.live, 0),
        expired: snapshot.workstreamLeases.reduce((sum, entry) => sum + entry.expired, 0),
      },
    },
  };
}

/** Reads the cluster's state now. */
export async function readClusterStatus(
  store: ClusterStatusStore,
  staleAfterSeconds: number,
  now = Date.now(),
): Promise<ClusterStatusView> {
  const snapshot = await store.snapshot({ now, instancesSeenWithinMs: INSTANCES_SEEN_WITHIN_MS });
  return clusterStatusView(snapshot, now, staleAfterSeconds);
}
