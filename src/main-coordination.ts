/**
 * Composition root: picks this instance's coordination (ADR 0052). PostgreSQL is a cluster (ADR 0021); SQLite is a
 * single instance (ADR 0023). The only place outside the two implementations that asks which one runs.
 */
import type { Config } from './config/index.js';
import { isClustered } from './gateway/cluster/cluster-mode.js';
import type { Coordination } from './gateway/cluster/coordination.js';
import { LocalCoordination } from './gateway/cluster/local-coordination.js';
import { PostgresCoordination } from './gateway/cluster/postgres-coordination.js';
import type { Stores } from './storage/stores.js';

export function createCoordination(config: Config, stores: Stores, instanceId: string): Coordination {
  return isClustered(config) ? new PostgresCoordination(config, stores, instanceId) : new LocalCoordination();
}

/** Heartbeat age after which `sandpiper status` calls an instance stale, without the stores. */
export function instanceStaleAfterSeconds(config: Config): number {
  return isClustered(config) ? config.cluster.lease_ttl_s : new LocalCoordination().staleAfterSeconds;
}
