/**
 * The turn log's entries outside a turn's own commit points (docs/design/durability.md): a waiting message is stored
 * when it is accepted, a workstream's waiting messages go when it closes, a turn's row goes when it ended, and the
 * text a streaming answer has shown is written at most once per `intervalMs` (never per token). The commit points of
 * the turn itself (*accepted*, *answered*) are written by the turn host. Every write here is handed to the store at
 * once, so the store's one write engine commits them in the order they were made; a failed write is logged with what
 * it lost (nobody waits on these: the turn's own commit points carry what a user must hear about).
 */
import { describeError } from '../shared/errors.js';
import type { Logger } from '../shared/logger.js';
import type { InboundClaim } from '../storage/inbound-event-store.js';
import type { TurnJournalChange, TurnJournalStore } from '../storage/turn-journal-store.js';

/** How often a streaming answer's text is written: a crash loses at most about this much of what was shown. */
export const DEFAULT_JOURNAL_INTERVAL_MS = 1000;

export interface TurnJournalOptions {
  store: Pick<TurnJournalStore, 'apply'>;
  logger: Logger;
  intervalMs?: number;
}

export class TurnJournal {
  /** Streamed text not yet written, by turn, with the turn's workstream. */
  private texts = new Map<string, { wsId: string; text: string }>();
  /** Turns whose row may hold text (set by a non-empty text, cleared by a reset or the end). */
  private readonly texted = new Set<string>();
  /** Acceptance order of waiting messages (milliseconds, then a counter within one). */
  private lastSeq = 0;
  /** Every write handed to the store and not settled yet (`flush` waits for them). */
  private readonly inFlight = new Set<Promise<void>>();
  private timer: NodeJS.Timeout | undefined;
  private readonly intervalMs: number;

  constructor(private readonly options: TurnJournalOptions) {
    this.intervalMs = options.intervalMs ?? DEFAULT_JOURNAL_INTERVAL_MS;
  }

  /** A message was accepted while a turn ran: stored until its own turn is accepted (or the workstream closes). */
  queue(
    wsId: string,
    turnId: string,
    content: string,
    origin: 'user' | 'watch',
    receipt?: InboundClaim,
  ): Promise<void> {
    this.lastSeq = Math.max(this.lastSeq + 1, Date.now() * 1000);
    const row = {
      kind: 'queue',
      turnId,
      wsId,
      content,
      origin,
      seq: this.lastSeq,
      ...(receipt === undefined ? {} : { receipt }),
    } as const;
    return this.write([row], 'storing a waiting message');
  }

  /** The workstream closed: its waiting messages will never run. */
  drop(wsId: string): Promise<void> {
    return this.write([{ kind: 'drop', wsId }], 'dropping the waiting messages of a closed workstream');
  }

  /**
   * The text the current model call has streamed so far ('' when a call starts or its message was stored). A reset
   * is written at once (text of an earlier call must not be taken for this call's); streamed text waits for the timer.
   */
  partial(wsId: string, turnId: string, text: string): void {
    if (text === '') {
      // A row starts with no text: a reset is written only after text was recorded for the turn.
      if (!this.texted.delete(turnId)) return;
      this.texts.set(turnId, { wsId, text });
      this.writeTexts();
      return;
    }
    this.texted.add(turnId);
    this.texts.set(turnId, { wsId, text });
    if (this.timer !== undefined) return;
    // Purpose: throttling. Streamed text is written at most once per interval; shutdown flushes what is left.
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.writeTexts();
    }, this.intervalMs);
    this.timer.unref();
  }

  /** The turn ended (answered, cancelled, failed) and was shown: nothing is left to settle. */
  end(wsId: string, turnId: string): Promise<void> {
    this.texts.delete(turnId);
    this.texted.delete(turnId);
    return this.write([{ kind: 'end', turnId, wsId }], 'ending a turn in the journal');
  }

  /** Resolves when everything handed in before the call is written (or its failure logged). Never rejects. */
  async flush(): Promise<void> {
    this.writeTexts();
    while (this.inFlight.size > 0) await Promise.all([...this.inFlight]);
  }

  /** Stops the timer (shutdown); streamed text not written yet stays until `flush`. */
  stop(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
  }

  private writeTexts(): void {
    if (this.texts.size === 0) return;
    const changes: TurnJournalChange[] = [...this.texts].map(([turnId, { wsId, text }]) => ({
      kind: 'partial',
      turnId,
      wsId,
      partialText: text,
    }));
    this.texts = new Map();
    void this.write(changes, 'writing the streamed text to the turn journal');
  }

  private write(changes: TurnJournalChange[], what: string): Promise<void> {
    const written = this.options.store.apply(changes).then(
      () => undefined,
      (error: unknown) => {
        // A write nobody waits on: the loss is named, so an operator sees which turns a restart cannot settle exactly.
        const turns = changes.map((change) => ('turnId' in change ? change.turnId : change.wsId));
        this.options.logger.error({ err: describeError(error), turns }, `${what} failed`);
      },
    );
    this.inFlight.add(written);
    void written.then(() => this.inFlight.delete(written));
    return written;
  }
}
