/**
 * Catch-up for Slack (ADR 0015): `conversations.history` for channels and `conversations.replies` for threads, from
 * `oldest` (exclusive), paged by cursor through the adapter's rate-limited Web API calls; and the gaps: Socket Mode
 * cannot resume, so every connection after the first (a dropped socket, a `disconnect` refresh) may have lost events.
 */
import type { ChannelHistory, HistoryStart, InboundMessage } from '../channel-adapter.js';
import { parseTarget, toInboundMessage, type RawMessageEvent, type SlackScope } from './slack-events.js';

const PAGE = 200;

export type SlackCall = (
  method: string,
  args: Record<string, unknown>,
  signal: AbortSignal,
) => Promise<Record<string, unknown>>;

/** The Socket Mode client's connection events (`connected` on every `hello`). */
export interface SocketEvents {
  on(event: string, listener: () => void): unknown;
}

export class SlackHistory implements ChannelHistory {
  private readonly listeners = new Set<(lostAtMs: number) => void>();
  private lostAt: number | undefined;
  private connections = 0;

  constructor(
    private readonly call: SlackCall,
    private readonly scope: () => SlackScope | undefined,
    private readonly configured: readonly string[],
    private readonly now: () => number = Date.now,
  ) {}

  /** Follows the socket: a close marks the start of a possible gap, the next `connected` reports it. */
  watch(socket: SocketEvents): void {
    const lost = (): void => {
      this.lostAt ??= this.now();
    };
    for (const event of ['disconnecting', 'disconnected', 'reconnecting', 'close']) socket.on(event, lost);
    socket.on('connected', () => {
      this.connections += 1;
      const lostAt = this.lostAt ?? this.now();
      this.lostAt = undefined;
      // The first connection is the start, which the gateway catches up on by itself.
      if (this.connections > 1) for (const listener of this.listeners) listener(lostAt);
    });
  }

  onGap(listener: (lostAtMs: number) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** The allow-list; without one, the channels the ledger has seen are covered by the gateway instead. */
  channels(): Promise<readonly string[]> {
    return Promise.resolve([...this.configured]);
  }

  async messagesAfter(
    channelId: string,
    start: HistoryStart,
    limit: number,
    signal: AbortSignal,
  ): Promise<InboundMessage[]> {
    const scope = this.scope();
    if (!scope) return [];
    const { channel, threadTs } = parseTarget(channelId);
    const oldest = laterTs(start.afterId, (start.sinceMs / 1000).toFixed(6));
    const raw = await this.pages(
      threadTs ? 'conversations.replies' : 'conversations.history',
      { channel, oldest, ...(threadTs ? { ts: threadTs } : {}) },
      limit,
      signal,
    );
    const found: InboundMessage[] = [];
    for (const message of raw.sort((a, b) => compareTs(a.ts ?? '', b.ts ?? ''))) {
      // replies always lead with the thread's parent message; history can carry thread replies sent to the channel.
      if (!message.ts || compareTs(message.ts, oldest) <= 0 || message.ts === threadTs) continue;
      const event = toInboundMessage({ ...message, type: 'message', channel }, scope);
      if (event) found.push(event);
    }
    return found.slice(0, limit);
  }

  private async pages(
    method: string,
    args: Record<string, unknown>,
    limit: number,
    signal: AbortSignal,
  ): Promise<RawMessageEvent[]> {
    const all: RawMessageEvent[] = [];
    let cursor: string | undefined;
    do {
      const reply = await this.call(
        method,
        { ...args, limit: PAGE, inclusive: false, ...(cursor ? { cursor } : {}) },
        signal,
      );
      all.push(...((reply.messages ?? []) as RawMessageEvent[]));
      const next = (reply.response_metadata as { next_cursor?: unknown } | undefined)?.next_cursor;
      cursor = typeof next === 'string' && next !== '' && reply.has_more !== false ? next : undefined;
    } while (cursor !== undefined && all.length < limit && !signal.aborted);
    return all;
  }
}

/** Numeric order of two Slack timestamps (`seconds.micros`). */
function compareTs(a: string, b: string): number {
  const [aWhole = '', aFraction = ''] = a.split('.');
  const [bWhole = '', bFraction = ''] = b.split('.');
  const whole = aWhole.padStart(12, '0').localeCompare(bWhole.padStart(12, '0'));
  return whole !== 0 ? whole : aFraction.padEnd(6, '0').localeCompare(bFraction.padEnd(6, '0'));
}

function laterTs(a: string | undefined, b: string): string {
  return a === undefined || compareTs(a, b) < 0 ? b : a;
}
