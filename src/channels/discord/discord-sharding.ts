/**
 * Which shards a single client runs when the shards are not leased (SQLite, or fixed `discord.shards`): the fixed ids,
 * else every shard of `discord.shard_count` ('auto': the count Discord recommends). ADR 0022.
 */
import { Routes, type ClientOptions, type REST } from 'discord.js';
import { ChannelError } from '../../shared/errors.js';

export interface ShardConfig {
  shard_count?: 'auto' | number | undefined;
  shards?: readonly number[] | undefined;
}

/** The shard count `GET /gateway/bot` recommends. */
export async function recommendedShards(rest: REST): Promise<number> {
  const info = (await rest.get(Routes.gatewayBot())) as { shards?: number };
  return typeof info.shards === 'number' && info.shards > 0 ? info.shards : 1;
}

/** The count of the bot's shards: the configured number, or Discord's recommendation. */
export async function shardCountOf(config: ShardConfig, rest: REST): Promise<number> {
  return typeof config.shard_count === 'number' ? config.shard_count : recommendedShards(rest);
}

/** The `shards` / `shardCount` client options; a fixed id outside the count is a configuration error. */
export async function singleSharding(
  config: ShardConfig,
  rest: REST,
): Promise<Pick<ClientOptions, 'shards' | 'shardCount'>> {
  const fixed = config.shards ?? [];
  if (fixed.length === 0) {
    if (typeof config.shard_count !== 'number') return { shards: 'auto' };
    return { shards: Array.from({ length: config.shard_count }, (_, id) => id), shardCount: config.shard_count };
  }
  const count = await shardCountOf(config, rest);
  const bad = fixed.filter((id) => id >= count);
  if (bad.length > 0) {
    throw new ChannelError(`discord.shards ${bad.join(', ')} must be below the shard count (${count})`, {
      code: 'CONFIG_INVALID',
    });
  }
  return { shards: [...new Set(fixed)], shardCount: count };
}
