/**
 * Coordination of an instance in a cluster on one PostgreSQL (ADR 0021, ADR 0052): every inbound event is claimed in
 * the ledger table, links are looked up in the database, a workstream runs on the instance holding its lease (others
 * hand it work), Discord shards are leased and identify calls are paced through a shared bucket.
 */
import { createHash } from 'node:crypto';
import type { DefaultWorkstreamManager } from '../../agent/workstream-manager.js';
import type { Config } from '../../config/index.js';
import type { Logger } from '../../shared/logger.js';
import type { Stores } from '../../storage/stores.js';
import type { Coordination, WorkstreamPlacement } from './coordination.js';
import { claimOrderTiming, createCluster } from './create-cluster.js';
import type { McpControl } from './mcp-fanout.js';
import { discordClusterOptions, registryMetadata } from './discord-shard-cluster.js';
import { SharedIdentifyThrottle } from './identify-throttle.js';

export class PostgresCoordination implements Coordination {
  readonly staleAfterSeconds: number;

  constructor(
    private readonly config: Config,
    private readonly stores: Stores,
    private readonly instanceId: string,
  ) {
    // An instance counts as stale once its heartbeat is older than the lease TTL: its leases may be taken over by then.
    this.staleAfterSeconds = config.cluster.lease_ttl_s;
  }

  discordSharding(): ReturnType<typeof discordClusterOptions> {
    return discordClusterOptions(this.config, this.stores, this.instanceId);
  }

  identifyThrottle(maxConcurrency: number): SharedIdentifyThrottle | undefined {
    const token = this.config.discord.token;
    if (token === undefined) return undefined;
    // The bucket names the bot by a digest of its token (never the token itself).
    const bot = createHash('sha256').update(token).digest('hex').slice(0, 16);
    return new SharedIdentifyThrottle(this.stores.identifySlots, bot, maxConcurrency);
  }

  registration(): { metadata: Record<string, unknown>; heartbeatMs: number } {
    // The registry beats with the leases, so `sandpiper status` sees a dead instance as soon as its leases expire.
    return { metadata: registryMetadata(this.config), heartbeatMs: this.config.cluster.heartbeat_s * 1000 };
  }

  placement(
    inner: DefaultWorkstreamManager,
    logger: Logger,
    applyMcp?: (control: McpControl) => Promise<void>,
  ): WorkstreamPlacement {
    const parts = createCluster({
      config: this.config,
      stores: this.stores,
      logger,
      instanceId: this.instanceId,
      inner,
      ...(applyMcp === undefined ? {} : { applyMcp }),
    });
    // A claimer whose heartbeat is older than a lease's time less one beat is dead: by then its Discord shard's lease has
    // expired and another instance took it (and caught up), so the claim is taken again.
    const { deadAfterMs } = claimOrderTiming(this.config);
    return {
      ...parts,
      recentClaims: () => undefined,
      pendingClaims: () => ({ instanceId: this.instanceId, deadAfterMs, order: parts.order }),
      linkDirectory: () => undefined,
    };
  }
}
