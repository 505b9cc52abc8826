/**
 * Shards without leases (ADR 0022), through discord.js against a 2-shard fake: one process with `shard_count = "auto"`
 * runs every shard Discord recommends (SQLite, single-instance), fixed `discord.shards` run just those ids, and a fixed
 * id beyond the recommended count is a configuration error naming the key.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createDiscordAdapter, type DiscordAdapterConfig } from '../../src/channels/discord/index.js';
import type { InboundEvent } from '../../src/channels/channel-adapter.js';
import { ChannelError } from '../../src/shared/errors.js';
import { createSilentLogger } from '../../src/shared/logger.js';
import { FakeDiscord } from '../fakes/fake-discord.js';

describe('discord shards without leases', () => {
  let discord: FakeDiscord;
  before(async () => {
    discord = await FakeDiscord.start({ shards: 2, guilds: 2 });
  });
  after(async () => {
    await discord.close();
  });

  const start = async (
    extra: Partial<DiscordAdapterConfig>,
  ): Promise<{ stop(): Promise<void>; events: InboundEvent[] }> => {
    const adapter = createDiscordAdapter(
      { token: discord.token, api_url: discord.apiUrl, channel_ids: [], ...extra },
      createSilentLogger(),
      { identifyThrottle: false },
    );
    const events: InboundEvent[] = [];
    await adapter.start(async (event) => void events.push(event), new AbortController().signal);
    return { stop: () => adapter.stop(), events };
  };

  it('runs every recommended shard in one process with shard_count = "auto", and hears both guilds', async () => {
    const adapter = await start({ shard_count: 'auto', shards: [] });
    try {
      await discord.waitFor(
        () => discord.gateway.holders(0) === 1 && discord.gateway.holders(1) === 1,
        10_000,
        'both shards',
      );
      const user = discord.user('400000000000000095', 'ari');
      for (const guild of [0, 1])
        discord.state.injectMessage(discord.channelOf(guild), user, `hello guild ${guild}`, true);
      await discord.waitFor(() => adapter.events.length === 2, 10_000, 'a message from each guild');
    } finally {
      await adapter.stop();
    }
    await discord.waitFor(() => discord.gateway.connected === 0, 10_000, 'closed');
  });

  it('runs only the fixed shard ids', async () => {
    const adapter = await start({ shard_count: 2, shards: [1] });
    try {
      await discord.waitFor(() => discord.gateway.holders(1) === 1, 10_000, 'shard 1');
      assert.equal(discord.gateway.holders(0), 0, 'shard 0 is left to another instance');
    } finally {
      await adapter.stop();
    }
    await discord.waitFor(() => discord.gateway.connected === 0, 10_000, 'closed');
    assert.equal(discord.gateway.duplicateIdentifies, 0);
    assert.equal(discord.gateway.refusedShards, 0, 'every IDENTIFY carried a valid shard');
  });

  it('refuses a fixed shard id beyond the recommended count with a configuration error', async () => {
    await assert.rejects(start({ shard_count: 'auto', shards: [0, 5] }), (error: unknown) => {
      assert.ok(error instanceof ChannelError);
      assert.equal(error.code, 'CONFIG_INVALID');
      assert.match(error.message, /discord\.shards 5 must be below the shard count \(2\)/);
      return true;
    });
    assert.equal(discord.gateway.connected, 0, 'nothing connected');
  });
});
