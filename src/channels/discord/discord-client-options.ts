/** The discord.js options of every client of the Discord adapter: intents, REST settings and who paces identify calls. */
import { GatewayIntentBits, Partials, SimpleIdentifyThrottler, type ClientOptions } from 'discord.js';
import type { DiscordAdapterConfig, DiscordAdapterOptions } from './discord-adapter.js';

/** The options of one client; a shard client adds its `shards` and `shardCount` (`sharding`). */
export function discordClientOptions(
  config: DiscordAdapterConfig,
  options: DiscordAdapterOptions,
  sharding: Partial<ClientOptions> = {},
  beforeIdentify?: IdentifyGate,
): ClientOptions {
  return {
    intents: [
      GatewayIntentBits.Guilds,
      GatewayIntentBits.GuildMessages,
      GatewayIntentBits.MessageContent,
      GatewayIntentBits.DirectMessages,
    ],
    partials: [Partials.Channel],
    allowedMentions: { parse: [], repliedUser: false },
    rest: {
      ...(config.api_url ? { api: config.api_url } : {}),
      ...(config.global_requests_per_second ? { globalRequestsPerSecond: config.global_requests_per_second } : {}),
      version: '10',
      timeout: 15_000,
    },
    ...identifyOptions(options, beforeIdentify),
    ...sharding,
  };
}

/** A wait before a shard's IDENTIFY (after the pacing): a leased shard's check that its lease still holds. */
export type IdentifyGate = (shardId: number, signal: AbortSignal) => Promise<void>;

interface IdentifyThrottler {
  waitForIdentify(shardId: number, signal: AbortSignal): Promise<void>;
}

const NO_WAIT: IdentifyThrottler = { waitForIdentify: () => Promise.resolve() };

/**
 * Who paces identify calls: nobody (tests), the shared throttle (cluster, ADR 0052), or discord.js's own; `gate` runs
 * after the pacing, right before the IDENTIFY is sent.
 */
function identifyOptions(options: DiscordAdapterOptions, gate: IdentifyGate | undefined): Partial<ClientOptions> {
  const { identifyThrottle, identify } = options;
  const gated = (pacing: IdentifyThrottler): IdentifyThrottler =>
    gate === undefined
      ? pacing
      : {
          waitForIdentify: async (shardId, signal) => {
            await pacing.waitForIdentify(shardId, signal);
            await gate(shardId, signal);
          },
        };
  if (identifyThrottle === false) return { ws: { buildIdentifyThrottler: () => Promise.resolve(gated(NO_WAIT)) } };
  if (identify === undefined && gate === undefined) return {};
  return {
    ws: {
      buildIdentifyThrottler: async (manager) => {
        const maxConcurrency = (await manager.fetchGatewayInformation()).session_start_limit.max_concurrency;
        return gated(identify?.(maxConcurrency) ?? new SimpleIdentifyThrottler(maxConcurrency));
      },
    },
  };
}
