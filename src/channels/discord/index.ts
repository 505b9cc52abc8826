/** Public surface of the Discord adapter: `createDiscordAdapter(config.discord, logger)`. */
import type { Logger } from '../../shared/logger.js';
import type { ChannelAdapter } from '../channel-adapter.js';
import { DiscordAdapter, type DiscordAdapterConfig, type DiscordAdapterOptions } from './discord-adapter.js';

export type { DiscordAdapterConfig, DiscordAdapterOptions };
export type { DiscordClusterOptions, ShardLeasePort } from './discord-shard-keeper.js';

/** Builds the Discord adapter from the `discord` config section; it connects on `start`. */
export function createDiscordAdapter(
  config: DiscordAdapterConfig,
  logger: Logger,
  options: DiscordAdapterOptions = {},
): ChannelAdapter {
  return new DiscordAdapter(config, logger.child({ platform: 'discord' }), options);
}
