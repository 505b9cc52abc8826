/**
 * Catch-up for Discord (ADR 0015): channel history through discord.js (`GET /channels/{id}/messages?after=`, paged
 * by 100 within the REST rate limits), and the gaps: a new session (READY after op 9 or a failed RESUME) lost
 * whatever was dispatched since the connection dropped; a clean RESUME replays it and is no gap.
 */
import { ChannelType, Events, SnowflakeUtil, type Client, type Message } from 'discord.js';
import type { ChannelHistory, HistoryStart, InboundMessage } from '../channel-adapter.js';
import { toChannelError } from '../channel-errors.js';
import type { DiscordScope } from './discord-events.js';
import { toInboundMessage } from './discord-events.js';

const PAGE = 100;

export class DiscordHistory implements ChannelHistory {
  private readonly listeners = new Set<(lostAtMs: number) => void>();
  /** When the connection was last lost (the start of a possible gap); undefined while connected. */
  private lostAt: number | undefined;
  private readyOnce = false;

  constructor(
    private readonly client: Client,
    private readonly scope: () => DiscordScope | undefined,
    private readonly configured: readonly string[],
    private readonly now: () => number = Date.now,
  ) {}

  /** Follows the shard's life: reconnecting marks a possible gap, READY of a new session confirms it, RESUMED clears it. */
  watch(): void {
    const lost = (): void => {
      this.lostAt ??= this.now();
    };
    this.client.on(Events.ShardDisconnect, lost);
    this.client.on(Events.ShardReconnecting, lost);
    this.client.on(Events.ShardResume, () => {
      this.lostAt = undefined;
    });
    this.client.on(Events.ShardReady, () => {
      // The first READY is the start, which the gateway catches up on by itself.
      const lostAt = this.lostAt ?? this.now();
      this.lostAt = undefined;
      if (!this.readyOnce) {
        this.readyOnce = true;
        return;
      }
      for (const listener of this.listeners) listener(lostAt);
    });
  }

  onGap(listener: (lostAtMs: number) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  channels(): Promise<readonly string[]> {
    if (this.configured.length > 0) return Promise.resolve([...this.configured]);
    const guildId = this.scope()?.guildId;
    const text = this.client.channels.cache.filter(
      (channel) => (channel.type === ChannelType.GuildText || channel.type === ChannelType.GuildAnnouncement) && (guildId === undefined || channel.guildId === guildId),
    );
    return Promise.resolve([...text.keys()]);
  }

  async messagesAfter(channelId: string, start: HistoryStart, limit: number, signal: AbortSignal): Promise<InboundMessage[]> {
    const scope = this.scope();
    if (!scope) return [];
    try {
      const channel = await this.client.channels.fetch(channelId);
      if (!channel || !channel.isTextBased() || !('messages' in channel)) return [];
      let after = laterOf(start.afterId, SnowflakeUtil.generate({ timestamp: Math.max(start.sinceMs, Number(SnowflakeUtil.epoch)) }).toString());
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
