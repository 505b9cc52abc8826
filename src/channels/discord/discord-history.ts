/**
 * Catch-up for Discord (ADR 0015): channel history through discord.js (`GET /channels/{id}/messages?after=`, paged
 * by 100 within the REST rate limits), and the gaps: a new session (READY after op 9 or a failed RESUME) lost
 * whatever was dispatched since the connection dropped; a clean RESUME replays it and is no gap. With leased shards
 * (ADR 0022) each shard client is watched on its own, a taken-over shard reports a gap through `gap()`, and a channel
 * is read through the client that holds its guild's shard (one held elsewhere is skipped: its holder catches it up).
 */
import { ChannelType, Events, SnowflakeUtil, type Client, type Message } from 'discord.js';
import type { ChannelHistory, HistoryStart, InboundMessage } from '../channel-adapter.js';
import { toChannelError } from '../channel-errors.js';
import type { DiscordScope } from './discord-events.js';
import { toInboundMessage } from './discord-events.js';

const PAGE = 100;

/** Which gateway clients exist and which one can read a channel (one client, or one per leased shard). */
export interface HistorySource {
  gatewayClients(): Client[];
  clientFor(channelId: string): Promise<Client | undefined>;
}

export class DiscordHistory implements ChannelHistory {
  private readonly listeners = new Set<(lostAtMs: number) => void>();

  constructor(
    private readonly source: HistorySource,
    private readonly scope: () => DiscordScope | undefined,
    private readonly configured: readonly string[],
    private readonly now: () => number = Date.now,
  ) {}

  /**
   * Follows one gateway client's life: reconnecting marks a possible gap, READY of a new session confirms it, RESUMED
   * clears it. The client's first READY is its start, which the gateway (or the shard takeover) catches up on.
   */
  watch(client: Client): void {
    // When the connection was last lost (the start of a possible gap); undefined while connected.
    let lostAt: number | undefined;
    let readyOnce = false;
    const lost = (): void => {
      lostAt ??= this.now();
    };
    client.on(Events.ShardDisconnect, lost);
    client.on(Events.ShardReconnecting, lost);
    client.on(Events.ShardResume, () => {
      lostAt = undefined;
    });
    client.on(Events.ShardReady, () => {
      const since = lostAt ?? this.now();
      lostAt = undefined;
      if (!readyOnce) {
        readyOnce = true;
        return;
      }
      this.gap(since);
    });
  }

  /** Tells the listeners that events since `lostAtMs` may have been lost (a new session, a shard taken over). */
  gap(lostAtMs: number): void {
    for (const listener of this.listeners) listener(lostAtMs);
  }

  onGap(listener: (lostAtMs: number) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  channels(): Promise<readonly string[]> {
    if (this.configured.length > 0) return Promise.resolve([...this.configured]);
    const guildId = this.scope()?.guildId;
    const ids = this.source
      .gatewayClients()
      .flatMap((client) => [
        ...client.channels.cache
          .filter(
            (channel) =>
              (channel.type === ChannelType.GuildText || channel.type === ChannelType.GuildAnnouncement) &&
              (guildId === undefined || channel.guildId === guildId),
          )
          .keys(),
      ]);
    return Promise.resolve([...new Set(ids)]);
  }

  async messagesAfter(
    channelId: string,
    start: HistoryStart,
    limit: number,
    signal: AbortSignal,
  ): Promise<InboundMessage[]> {
    const scope = this.scope();
    if (!scope) return [];
    try {
      const channel = await (await this.source.clientFor(channelId))?.channels.fetch(channelId);
      if (!channel || !channel.isTextBased() || !('messages' in channel)) return [];
      let after = laterOf(
        start.afterId,
        SnowflakeUtil.generate({ timestamp: Math.max(start.sinceMs, Number(SnowflakeUtil.epoch)) }).toString(),
      );
      const found: InboundMessage[] = [];
      while (found.length < limit && !signal.aborted) {
        const page = await channel.messages.fetch({ after, limit: PAGE, cache: false });
        const ordered = [...page.values()].sort((a, b) => compare(a.id, b.id));
        for (const message of ordered) {
          const event = message.createdTimestamp >= start.sinceMs ? inbound(message, scope) : undefined;
          if (event) found.push(event);
        }
        const last = ordered.at(-1);
        if (!last || ordered.length < PAGE) break;
        after = last.id;
      }
      return found.slice(0, limit);
    } catch (error) {
      throw toChannelError('discord history', error);
    }
  }
}

function inbound(message: Message, scope: DiscordScope): InboundMessage | undefined {
  return toInboundMessage(message, scope);
}

function compare(a: string, b: string): number {
  const x = BigInt(a);
  const y = BigInt(b);
  return x < y ? -1 : x > y ? 1 : 0;
}

function laterOf(a: string | undefined, b: string): string {
  return a === undefined || compare(a, b) < 0 ? b : a;
}
