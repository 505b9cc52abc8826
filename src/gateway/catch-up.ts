/**
 * Catch-up (ADR 0015): after a start, and after a reconnect that may have lost events, fetches what was written in
 * each conversation after the last message handled there (within `gateway.catch_up_hours`) and hands it, in order,
 * to the normal inbound path. The dedup ledger drops whatever was handled already.
 */
import type { ChannelAdapter, InboundMessage } from '../channels/channel-adapter.js';
import { describeError } from '../shared/errors.js';
import type { Logger } from '../shared/logger.js';
import type { Stores } from '../storage/stores.js';

/** Most messages fetched per conversation and run (10 pages of 100 on Discord). */
export const CATCH_UP_MESSAGE_LIMIT = 1000;
/** Most routed threads looked at per run, newest first (threads with recent messages are always looked at). */
export const CATCH_UP_ROUTE_LIMIT = 200;

export interface CatchUpDeps {
  stores: Stores;
  logger: Logger;
  /** `gateway.catch_up_hours` in milliseconds; 0 disables catch-up. */
  windowMs: number;
  now: () => number;
  signal: AbortSignal;
  /**
   * The normal inbound path (ledger first), `reclaim`: a message claimed by a process that died before storing it is
   * handled again (`InboundLedger.admit`).
   */
  dispatch(adapter: ChannelAdapter, event: InboundMessage, reclaim: boolean): Promise<void>;
}

export interface CatchUpReport {
  conversations: number;
  fetched: number;
}

/** One catch-up loop per adapter; a gap reported while a run is going starts one more run after it. */
export class CatchUp {
  private readonly running = new Map<string, Promise<void>>();
  private readonly again = new Map<string, number>();

  constructor(private readonly deps: CatchUpDeps) {}

  get enabled(): boolean {
    return this.deps.windowMs > 0;
  }

  /** Catches up on `adapter` for events lost since `lostAtMs`; resolves when this (or the follow-up) run is done. */
  run(adapter: ChannelAdapter, lostAtMs: number): Promise<void> {
    if (!this.enabled || !adapter.features.history) return Promise.resolve();
    const platform = adapter.platform;
    const current = this.running.get(platform);
    if (current) {
      this.again.set(platform, Math.min(this.again.get(platform) ?? lostAtMs, lostAtMs));
      return current;
    }
    const work = (async () => {
      let since: number | undefined = lostAtMs;
      while (since !== undefined && !this.deps.signal.aborted) {
        await this.once(adapter, since);
        since = this.again.get(platform);
        this.again.delete(platform);
      }
    })().finally(() => this.running.delete(platform));
    this.running.set(platform, work);
    return work;
  }

  private async once(adapter: ChannelAdapter, lostAtMs: number): Promise<CatchUpReport> {
    const report = { conversations: 0, fetched: 0 };
    try {
      const conversations = await this.conversations(adapter);
      for (const channelId of conversations) {
        if (this.deps.signal.aborted) break;
        report.conversations += 1;
        report.fetched += await this.conversation(adapter, channelId, lostAtMs);
      }
      this.deps.logger.info({ platform: adapter.platform, ...report }, 'catch-up done');
    } catch (error) {
      this.deps.logger.warn({ platform: adapter.platform, error: describeError(error) }, 'catch-up failed');
    }
    return report;
  }

  /** Allowed channels first (mentions open threads), then threads: routed ones and those with recent messages. */
  private async conversations(adapter: ChannelAdapter): Promise<string[]> {
    const { stores, now, windowMs, signal } = this.deps;
    const channels = (await adapter.features.history?.channels(signal)) ?? [];
    const routes = (await stores.routes.listRoutes(adapter.platform))
      .slice(0, CATCH_UP_ROUTE_LIMIT)
      .map((route) => route.channelId);
    const recent = await stores.inboundEvents.recentConversations(adapter.platform, now() - windowMs);
    const threads = [...routes, ...recent].filter((id) => !channels.includes(id));
    return [...new Set([...channels, ...threads])];
  }

  /** Fetches and handles one conversation's missed messages; resolves with how many were fetched. */
  private async conversation(adapter: ChannelAdapter, channelId: string, lostAtMs: number): Promise<number> {
    const { stores, now, windowMs, signal } = this.deps;
    const history = adapter.features.history;
    if (!history) return 0;
    try {
      // The newest message settled before the loss: a pending claim after it (its message never stored) is fetched again.
      const cursor = await stores.inboundEvents.cursor(adapter.platform, channelId, lostAtMs);
      const start = { afterId: cursor?.messageId, sinceMs: now() - windowMs };
      const messages = await history.messagesAfter(channelId, start, CATCH_UP_MESSAGE_LIMIT, signal);
      // Handed over in order without waiting for each: the ledger claims and the routing lanes keep the order per
      // conversation (and per thread), while thread openings and turns of different messages overlap.
      await Promise.all(messages.map((message) => this.deps.dispatch(adapter, message, true)));
      return messages.length;
    } catch (error) {
      this.deps.logger.warn(
        { platform: adapter.platform, error: describeError(error) },
        'catch-up of a conversation failed',
      );
      return 0;
    }
  }
}
