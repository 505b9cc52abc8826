/**
 * Write-behind of the turn journal (`turn_journal`): a turn's start and end are written at once (on the next turn of
 * the event loop), the text it streams at most once per `intervalMs`, all changes of a flush in one transaction. A
 * restart reads the rows left behind to settle the turns the process did not finish (docs/decisions/0013).
 */
import { describeError } from '../shared/errors.js';
import type { Logger } from '../shared/logger.js';
import type { TurnJournalChange, TurnJournalStore } from '../storage/turn-journal-store.js';

/** How often a streaming answer's text is written: a crash loses at most about this much of what was shown. */
export const DEFAULT_JOURNAL_INTERVAL_MS = 1000;

interface Entry {
  queue?: Extract<TurnJournalChange, { kind: 'queue' }>;
  begin?: Extract<TurnJournalChange, { kind: 'begin' }>;
  partial?: string;
  end?: boolean;
}

export interface TurnJournalOptions {
  store: Pick<TurnJournalStore, 'apply'>;
  logger: Logger;
  intervalMs?: number;
}

export class TurnJournal {
  private pending = new Map<string, Entry>();
  /** Workstreams whose waiting messages go (closed); applied before the entries of the same flush. */
  private drops = new Set<string>();
  /** Acceptance order of waiting messages (milliseconds, then a counter within one). */
  private lastSeq = 0;
  private running: Promise<void> | undefined;
  private timer: NodeJS.Timeout | undefined;
  private soon: NodeJS.Timeout | undefined;
  private urgent = false;
  private readonly intervalMs: number;

  constructor(private readonly options: TurnJournalOptions) {
    this.intervalMs = options.intervalMs ?? DEFAULT_JOURNAL_INTERVAL_MS;
  }

  /** A message was accepted while a turn ran: stored until its own turn begins (or the workstream closes). */
  queue(wsId: string, turnId: string, content: string, origin: 'user' | 'watch'): void {
    this.lastSeq = Math.max(this.lastSeq + 1, Date.now() * 1000);
    this.entry(turnId).queue = { kind: 'queue', turnId, wsId, content, origin, seq: this.lastSeq };
    this.schedule(true);
  }

  /** The workstream closed: its waiting messages will never run. */
  drop(wsId: string): void {
    for (const [turnId, entry] of this.pending) if (entry.queue?.wsId === wsId && entry.begin === undefined) this.pending.delete(turnId);
    this.drops.add(wsId);
    this.schedule(true);
  }

  /** A turn started; `resumed` marks the resumption of an interrupted turn (it is never resumed again). */
  begin(wsId: string, turnId: string, resumed: boolean): void {
    this.entry(turnId).begin = { kind: 'begin', turnId, wsId, resumed };
    this.schedule(true);
  }

  /** The text the current model call has streamed so far ('' when a call starts or its message was stored). */
  partial(turnId: string, text: string): void {
    this.entry(turnId).partial = text;
    this.schedule(text === '');
  }

  /** The turn ended (answered, cancelled, failed): nothing is left to settle. */
  end(turnId: string): void {
    this.entry(turnId).end = true;
    this.schedule(true);
  }

  /** Resolves when everything queued before the call is written (or its failure logged). Never rejects. */
  async flush(): Promise<void> {
    while (this.running !== undefined || this.pending.size > 0 || this.drops.size > 0) {
      if (this.running === undefined) this.start();
      await this.running;
    }
  }

  /** Stops the timer (shutdown); queued changes stay until `flush`. */
  stop(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    clearTimeout(this.soon);
    this.soon = undefined;
  }

  private entry(turnId: string): Entry {
    let entry = this.pending.get(turnId);
    if (entry === undefined) {
      entry = {};
      this.pending.set(turnId, entry);
    }
    return entry;
  }

  /**
   * Urgent changes (start, end, a call's first empty text) go out on the next turn of the event loop, where they share
   * the transaction of the turn's other writes (ADR 0026, 0031); streamed text waits for the interval.
   */
  private schedule(urgent: boolean): void {
    this.urgent ||= urgent;
    if (this.running !== undefined) return;
    if (this.urgent) {
      this.startSoon();
      return;
    }
    if (this.timer !== undefined) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.start();
    }, this.intervalMs);
    // Shutdown flushes what is queued; a pending write never keeps the process alive on its own.
    this.timer.unref();
  }

  /** On the next turn of the event loop, off the path of the request being sent now (ADR 0031). */
  private startSoon(): void {
    if (this.soon !== undefined) return;
    this.soon = setTimeout(() => {
      this.soon = undefined;
      clearTimeout(this.timer);
      this.timer = undefined;
      this.start();
    }, 0);
    this.soon.unref();
  }

  private start(): void {
    if (this.running !== undefined || (this.pending.size === 0 && this.drops.size === 0)) return;
    const batch = [...this.pending.entries()];
    const drops = [...this.drops];
    this.pending = new Map();
    this.drops = new Set();
    this.urgent = false;
    this.running = this.write(drops, batch).finally(() => {
      this.running = undefined;
      if (this.pending.size > 0 || this.drops.size > 0) this.schedule(this.urgent);
    });
  }

  private async write(drops: readonly string[], batch: Array<[string, Entry]>): Promise<void> {
    const changes: TurnJournalChange[] = drops.map((wsId) => ({ kind: 'drop', wsId }));
    for (const [turnId, entry] of batch) {
      // A message queued and started within one batch never waits in a row (its begin removes none).
      if (entry.queue !== undefined && entry.begin === undefined && entry.end !== true) changes.push(entry.queue);
      // A turn that began and ended within one batch never needs a row.
      if (entry.begin !== undefined && entry.end === true) continue;
      if (entry.begin !== undefined) changes.push(entry.begin);
      // A new row starts with no text: an empty partial in the same batch would be a second statement for nothing.
      const redundant = entry.begin !== undefined && entry.partial === '';
      if (entry.partial !== undefined && entry.end !== true && !redundant) changes.push({ kind: 'partial', turnId, partialText: entry.partial });
      if (entry.end === true) changes.push({ kind: 'end', turnId });
    }
    if (changes.length === 0) return;
    try {
      await this.options.store.apply(changes);
    } catch (error) {
      this.options.logger.error({ err: describeError(error), turns: batch.map(([turnId]) => turnId) }, 'writing the turn journal failed');
    }
  }
}
