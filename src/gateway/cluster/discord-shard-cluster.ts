/**
 * What the Discord adapter needs to lease its shards in cluster mode (ADR 0022): the shard lease store, this
 * instance's id, the cluster timings, and the live instances that lease shards too (from the service registry, whose
 * rows carry `discord_shards: 'leased'`), so each instance takes at most ceil(shards / instances).
 */
import type { DiscordClusterOptions } from '../../channels/discord/index.js';
import type { Config } from '../../config/index.js';
import type { Stores } from '../../storage/stores.js';
import { SERVICE_TYPE } from '../registry.js';

/** The registry metadata key saying an instance leases Discord shards. */
export const SHARD_LEASING_KEY = 'discord_shards';

/** Whether an instance of a cluster leases Discord shards: Discord configured, no fixed `discord.shards`. */
export function leasesDiscordShards(config: Config): boolean {
  return config.discord.token !== undefined && config.discord.shards.length === 0;
}

/** The registry metadata of this instance: whether it leases Discord shards (the others count it for the fair share). */
export function registryMetadata(config: Config): Record<string, unknown> {
  return leasesDiscordShards(config) ? { [SHARD_LEASING_KEY]: 'leased' } : {};
}

/** The adapter's cluster options, or undefined when the shards are not leased. */
export function discordClusterOptions(
  config: Config,
  stores: Stores,
  instanceId: string,
): DiscordClusterOptions | undefined {
  if (!leasesDiscordShards(config)) return undefined;
  const { heartbeat_s: heartbeatS, lease_ttl_s: ttlS } = config.cluster;
  return {
    leases: stores.shardLeases,
    instanceId,
    heartbeatMs: heartbeatS * 1000,
    ttlMs: ttlS * 1000,
    // An instance whose registry row went quiet for a lease TTL is gone (its leases have run out by then too).
    peers: async () =>
      (await stores.services.listHealthy(SERVICE_TYPE, ttlS))
        .filter((row) => row.metadata[SHARD_LEASING_KEY] === 'leased')
        .map((row) => row.serviceId),
  };
}
