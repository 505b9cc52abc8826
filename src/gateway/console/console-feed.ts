/**
 * The console's live stream of changes (ADR 0047): while at least one console is connected, one loop reads each
 * source (conversations, pending approvals, MCP servers, adapters) and hands every listener the sources whose answer
 * changed. The database is where every instance writes, so reading it shows the whole cluster's conversations and
 * approvals, not only this process's; a new listener first gets the latest answer of each source.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { describeError } from '../../shared/errors.js';
import type { Logger } from '../../shared/logger.js';

export interface FeedEvent {
  /** The source's name (`conversations`, `approvals`, `mcp`, `health`): the SSE event name. */
  name: string;
  /** The source's answer as JSON. */
  data: string;
}

export type FeedSources = Record<string, () => Promise<unknown>>;
export type FeedListener = (event: FeedEvent) => void;

export interface ConsoleFeedOptions {
  sources: FeedSources;
  logger: Logger;
  /** Pause between two reads of the sources (a throttle: the console is a view, never a commit point). */
  intervalMs?: number;
  signal: AbortSignal;
}

export class ConsoleFeed {
  private readonly listeners = new Set<FeedListener>();
  private readonly latest = new Map<string, string>();
  private running: Promise<void> | undefined;
  private readonly intervalMs: number;

  constructor(private readonly options: ConsoleFeedOptions) {
    this.intervalMs = options.intervalMs ?? 1000;
  }

  /** Adds a listener (it gets the latest answers now) and starts the loop if it was idle; returns the unsubscribe. */
  subscribe(listener: FeedListener): () => void {
    this.listeners.add(listener);
    for (const [name, data] of this.latest) listener({ name, data });
    this.start();
    return () => this.listeners.delete(listener);
  }

  private start(): void {
    this.running ??= this.loop().finally(() => {
      this.running = undefined;
      // A console that connected while the loop was ending.
      if (this.listeners.size > 0 && !this.options.signal.aborted) this.start();
    });
  }

  private async loop(): Promise<void> {
    const { signal } = this.options;
    while (this.listeners.size > 0 && !signal.aborted) {
      await this.readAll();
      await sleep(this.intervalMs, undefined, { signal }).catch(() => undefined);
    }
    // Nobody watches: the next console starts from fresh answers.
    this.latest.clear();
  }

  private async readAll(): Promise<void> {
    for (const [name, read] of Object.entries(this.options.sources)) {
      let data: string;
      try {
        data = JSON.stringify(await read());
      } catch (error) {
        this.options.logger.warn({ source: name, error: describeError(error) }, 'console feed source failed');
        continue;
      }
      if (this.latest.get(name) === data) continue;
      this.latest.set(name, data);
      for (const listener of this.listeners) listener({ name, data });
    }
  }
}
