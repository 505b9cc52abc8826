/**
 * A workstream's turn queue: the jobs (messages to answer, turns resumed from their approval), run one at a time in
 * order, the bound on messages waiting (ADR 0006), the drain, and the messages a previous process accepted and never
 * started (ADR 0030), which run once the restart settled. It knows nothing of how a job runs (`run`).
 */
import type { Job, WaitingMessage } from './workstream-jobs.js';

export interface TurnQueueOptions {
  /** Runs one job to its end; a rejection is handed to `failed` and the next job runs. */
  run(job: Job): Promise<void>;
  failed(error: unknown): void;
  /** Called before and after each job (the workstream's activity time). */
  active(): void;
  /** Called once when a drain ends: no job runs and none is queued (the workstream's `idle` event). */
  drained(): void;
}

export class TurnQueue {
  private readonly jobs: Job[] = [];
  private drain: Promise<void> | undefined;
  private stopped = false;
  /** Messages the previous process had accepted but not started; they run once the restart settled. */
  private waiting: WaitingMessage[] = [];

  constructor(private readonly options: TurnQueueOptions) {}

  /** Jobs queued and not started. */
  get size(): number {
    return this.jobs.length;
  }

  /** Messages waiting (the bound of `agent.max_queued_messages` counts these). */
  get waitingMessages(): number {
    return this.jobs.filter((job) => job.kind === 'user').length;
  }

  /** Queues a job at the end and starts the drain when none runs. */
  push(job: Job): void {
    this.jobs.push(job);
    this.kick();
  }

  /** Queues a job ahead of every other (a restored approval, a resumed turn). */
  pushFirst(job: Job): void {
    this.jobs.unshift(job);
    this.kick();
  }

  /** Set by the restore: messages the previous process accepted and never started, in order. */
  setWaiting(messages: WaitingMessage[]): void {
    this.waiting = messages;
  }

  /** Queues the messages the previous process left waiting (once), behind whatever is queued now. */
  runWaiting(): void {
    const known = new Set(this.jobs.map((job) => job.turnId));
    for (const message of this.waiting.splice(0))
      if (!known.has(message.turnId)) this.jobs.push({ kind: 'user', ...message, waited: true });
    this.kick();
  }

  /** Drops every queued job; with `stop`, none starts again (close, shutdown). */
  clear(stop: boolean): void {
    this.jobs.length = 0;
    if (stop) this.stopped = true;
  }

  /** Resolves when the queue is empty and the drain ended. */
  async settled(): Promise<void> {
    while (this.drain !== undefined) await this.drain;
  }

  private kick(): void {
    // With nothing queued the drain would finish before `drain` is assigned, and `drain` would never clear again.
    if (this.drain !== undefined || this.stopped || this.jobs.length === 0) return;
    this.drain = this.runAll();
  }

  private async runAll(): Promise<void> {
    try {
      for (let job = this.jobs.shift(); job !== undefined; job = this.stopped ? undefined : this.jobs.shift()) {
        this.options.active();
        await this.options.run(job).catch((error: unknown) => this.options.failed(error));
        this.options.active();
      }
    } finally {
      this.drain = undefined;
      // Synchronously after the last job: a job queued from here on starts a new drain, which ends in its own call.
      this.options.drained();
    }
  }
}
