/**
 * Write-behind for the workstream rows: state changes, token usage and the activity time of every workstream are
 * merged in memory and written in one transaction shortly after, off the path a user waits on. What is deferred
 * and what stays synchronous is recorded in docs/decisions/0011-hot-path-writes.md.
 */
import { describeError } from '../shared/errors.js';
import { GroupCommit, type Schedule } from '../shared/group-commit.js';
import type { Logger } from '../shared/logger.js';
import type { WorkstreamChange, WorkstreamState, WorkstreamStore } from '../storage/workstream-store.js';

export interface WorkstreamWritesOptions {
  store: Pick<WorkstreamStore, 'applyChanges'>;
  logger: Logger;
  now?: () => number;
  schedule?: Schedule;
}

/** What a model call's usage says beyond its token counts. */
export interface UsageDetail {
  model: string;
  cachedTokens?: number;
  /** The turn's first call of this model: counts one turn. */
  newTurn: boolean;
}

/** Adds one call's usage to the change's row of that day and model. */
function addDelta(change: WorkstreamChange, day: string, input: number, output: number, detail: UsageDetail): void {
  change.usage ??= [];
  let delta = change.usage.find((row) => row.day === day && row.model === detail.model);
  if (delta === undefined) {
    delta = { day, model: detail.model, turns: 0, inputTokens: 0, outputTokens: 0, cachedTokens: 0 };
    change.usage.push(delta);
  }
  delta.turns += detail.newTurn ? 1 : 0;
  delta.inputTokens += input;
  delta.outputTokens += output;
  delta.cachedTokens += Math.max(0, Math.trunc(detail.cachedTokens ?? 0));
}

/**
 * Whether a state change is written. A turn's own `thinking` and `running` are not while the row says `idle`: its
 * `turn_journal` row already shows that a turn runs (the console reads it, the retention purge skips it), and a
 * restart never reads them, so a turn costs one statement less. Every other change is written; the turn's closing
 * `idle` (or `error`) carries its usage and activity time.
 */
export function storesState(stored: WorkstreamState, next: WorkstreamState): boolean {
  return !(stored === 'idle' && (next === 'thinking' || next === 'running'));
}

/** Coalesces per-workstream changes; written by the one write-behind engine, one group at a time. */
export class WorkstreamWrites {
  private pending = new Map<string, WorkstreamChange>();
  /**
   * The first change after a quiet moment starts a write once the code that made it reached its next `await`, so the
   * changes of one moment merge; changes made while a write runs go in the next one.
   */
  private readonly engine: GroupCommit;
  /** Rows being inserted (a new workstream commits while its first turn starts): a flush waits for them. */
  private readonly creating = new Set<Promise<unknown>>();
  private readonly now: () => number;

  constructor(private readonly options: WorkstreamWritesOptions) {
    this.now = options.now ?? Date.now;
    const source = { hasPending: () => this.pending.size > 0, commitNext: () => this.writeNext() };
    this.engine = new GroupCommit(source, options.schedule === undefined ? {} : { schedule: options.schedule });
  }

  setState(wsId: string, state: WorkstreamState): void {
    this.change(wsId).state = state;
    this.engine.kick();
  }

  /** `detail` (the model called, cached input tokens, whether this is the turn's first call of it) fills `usage_daily`. */
  addUsage(wsId: string, inputTokens: number, outputTokens: number, detail?: UsageDetail): void {
    const change = this.change(wsId);
    const input = Math.max(0, Math.trunc(inputTokens));
    const output = Math.max(0, Math.trunc(outputTokens));
    change.inputTokens = (change.inputTokens ?? 0) + input;
    change.outputTokens = (change.outputTokens ?? 0) + output;
    if (detail !== undefined) addDelta(change, new Date(this.now()).toISOString().slice(0, 10), input, output, detail);
    // No flush of its own: a turn's usage goes with the state change that ends it (one UPDATE), or with `flush`.
  }

  /**
   * A message of the workstream was stored: its `updated` time moves, written with the workstream's next change (the
   * turn's closing state) or `flush`, not on its own: while the turn runs its journal row keeps the retention purge off.
   */
  touch(wsId: string): void {
    this.change(wsId).touched = new Date(this.now()).toISOString();
  }

  /** A new row is being inserted; changes to it are written only after that insert has settled. */
  afterCreation(insert: Promise<unknown>): void {
    this.creating.add(insert);
    void insert.then(
      () => this.creating.delete(insert),
      () => this.creating.delete(insert),
    );
  }

  /** Changes not yet written (tests, status). */
  get size(): number {
    return this.pending.size;
  }

  /** Resolves when everything queued before the call is written (or its failure was logged). Never rejects. */
  flush(): Promise<void> {
    return this.engine.committed();
  }

  private change(wsId: string): WorkstreamChange {
    let change = this.pending.get(wsId);
    if (change === undefined) {
      change = { wsId };
      this.pending.set(wsId, change);
    }
    return change;
  }

  private writeNext(): Promise<void> {
    const batch = [...this.pending.values()];
    this.pending = new Map();
    return this.write(batch);
  }

  private async write(batch: WorkstreamChange[]): Promise<void> {
    try {
      if (this.creating.size > 0) await Promise.allSettled([...this.creating]);
      await this.options.store.applyChanges(batch);
    } catch (error) {
      // Nothing here can be clicked or replied to; the loss is named so an operator sees what is missing.
      const lost = batch.map(({ wsId, state, inputTokens, outputTokens }) => ({
        wsId,
        state,
        inputTokens,
        outputTokens,
      }));
      this.options.logger.error({ err: describeError(error), lost }, 'writing workstream state and usage failed');
    }
  }
}
