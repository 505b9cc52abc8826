/** The discord.js options of every client of the Discord adapter: intents, REST settings and who paces identify calls. */
import { GatewayIntentBits, Partials, SimpleIdentifyThrottler, type ClientOptions } from 'discord.js';
import type { DiscordAdapterConfig, DiscordAdapterOptions } from './discord-adapter.js';

/** The options of one client; a shard client adds its `shards` and `shardCount` (`sharding`). */
export function discordClientOptions(
  config: DiscordAdapterConfig,
  options: DiscordAdapterOptions,
  sharding: Partial<ClientOptions> = {},
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
    ...identifyOptions(options),
    ...sharding,
  };
}

/** Who paces identify calls: nobody (tests), the shared throttle (cluster, ADR 0052), or discord.js itself. */
function identifyOptions(options: DiscordAdapterOptions): Partial<ClientOptions> {
  const { identifyThrottle, identify } = options;
  if (identifyThrottle === false) {
    return { ws: { buildIdentifyThrottler: () => Promise.resolve({ waitForIdentify: () => Promise.resolve() }) } };
  }
  if (identify === undefined) return {};
  return {
    ws: {
      buildIdentifyThrottler: async (manager) => {
        const maxConcurrency = (await manager.fetchGatewayInformation()).session_start_limit.max_concurrency;
        return identify(maxConcurrency) ?? new SimpleIdentifyThrottler(maxConcurrency);
      },
    },
  };
}
