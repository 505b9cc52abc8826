/**
 * The one write-behind engine (docs/design/durability.md): work handed in is committed in groups, one group at a time,
 * in the order it was handed in. With no group running, a group starts at the scheduler's next moment (a microtask:
 * once the code that handed work in reaches its next `await`), so work handed in together shares it; while one runs,
 * what is handed in waits and goes together in the next (group commit). Batching comes from callers sharing a commit,
 * never from a timer, and ordering never rests on one.
 *
 * The engine owns only the loop. Its user owns what is pending (a queue, a map merged per key) and commits it in
 * `commitNext`, which takes what it commits now, settles each caller's promise and never rejects. `committed()` is the
 * barrier: it resolves once everything handed in before the call has been committed (or reported failed).
 */

/** Runs `start` at the engine's next moment; tests inject a scheduler they step by hand. */
export type Schedule = (start: () => void) => void;

/** A microtask: the code that handed work in runs to its next `await` first. */
export const nextMicrotask: Schedule = (start) => queueMicrotask(start);

export interface GroupSource {
  /** True while work handed in is not committed yet. */
  hasPending(): boolean;
  /** Takes pending work and commits it; settles each caller (never rejects). */
  commitNext(): Promise<void>;
}

export class GroupCommit {
  private scheduled = false;
  private running: Promise<void> | undefined;
  private stopped = false;
  private readonly schedule: Schedule;

  constructor(
    private readonly source: GroupSource,
    options: { schedule?: Schedule } = {},
  ) {
    this.schedule = options.schedule ?? nextMicrotask;
  }

  /** Work was handed in: a group starts at the next moment unless one runs (the next then starts when it ends). */
  kick(): void {
    if (this.scheduled || this.running !== undefined || this.stopped) return;
    this.scheduled = true;
    this.schedule(() => {
      this.scheduled = false;
      if (this.running === undefined) this.start();
    });
  }

  /** True while a group runs or one is about to start. */
  get busy(): boolean {
    return this.running !== undefined || this.scheduled;
  }

  /**
   * The barrier: resolves once everything handed in before the call is committed (each caller learnt its outcome).
   * After `stop`, resolves once the running group settled; what was pending stays uncommitted, as a kill leaves it.
   */
  async committed(): Promise<void> {
    while (this.running !== undefined || (!this.stopped && this.source.hasPending())) {
      if (this.running === undefined) this.start();
      await this.running;
    }
  }

  /** No group starts from now on (shutdown, or a crash in tests); the running one finishes. */
  stop(): void {
    this.stopped = true;
  }

  private start(): void {
    if (this.stopped || !this.source.hasPending()) return;
    this.running = this.source.commitNext().finally(() => {
      this.running = undefined;
      if (this.source.hasPending()) this.kick();
    });
  }
}
