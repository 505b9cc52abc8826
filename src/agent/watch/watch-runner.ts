/**
 * The watch runner: every tick it claims the due watches, runs each command, evaluates the stop condition, records
 * the poll and delivers results into the workstream. State lives in `watches` only, so a restart loses nothing: an
 * overdue watch is simply due at the first tick after it (one poll, then its normal cadence).
 */
import { describeError } from '../../shared/errors.js';
import type { Logger } from '../../shared/logger.js';
import { isoFromMs } from '../../shared/time.js';
import type { WatchRow, WatchStore } from '../../storage/watch-store.js';
import { findBlockedPattern, sanitizeCommand } from '../tools/builtin/bash.js';
import { checkStopCondition } from './watch-condition.js';
import { formatWatchMessage } from './watch-message.js';
import type { Sandbox } from '../sandbox/sandbox.js';
import { runWatchCommand, type PollOutcome } from './watch-poll.js';

export const DEFAULT_WATCH_TICK_MS = 15_000;
/** Due watches handled per tick; the rest wait for the next tick. */
const MAX_DUE_PER_TICK = 100;
/** Polls running at once. */
const PARALLEL_POLLS = 4;

/** A result for a workstream: the text becomes a user message that starts a turn. */
export interface WatchDelivery {
  wsId: string;
  watchId: string;
  name: string;
  text: string;
}

export interface WatchRunnerOptions {
  store: WatchStore;
  /** Delivers into the workstream (restoring it when evicted); false when it no longer exists. */
  deliver: (delivery: WatchDelivery) => Promise<boolean>;
  /** The working directory of a workstream (commands run where its bash runs). */
  cwdFor: (wsId: string) => string;
  commandTimeoutMs: number;
  /** The tool sandbox the commands run in (as bash does); absent = none. */
  sandbox?: Sandbox;
  logger: Logger;
  tickMs?: number;
  now?: () => number;
}

export class WatchRunner {
  private readonly controller = new AbortController();
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<number> | undefined;
  private readonly now: () => number;

  constructor(private readonly options: WatchRunnerOptions) {
    this.now = options.now ?? Date.now;
  }

  /** Starts ticking; the first tick runs at once (overdue watches fire right after a restart). */
  start(): void {
    if (this.timer !== undefined || this.controller.signal.aborted) return;
    const tick = (): void => {
      void this.tick().catch((error: unknown) =>
        this.options.logger.error({ err: describeError(error) }, 'watch tick failed'),
      );
    };
    // Purpose: cadence (watches due are run each tick).
    this.timer = setInterval(tick, this.options.tickMs ?? DEFAULT_WATCH_TICK_MS);
    this.timer.unref();
    tick();
  }

  /** Stops ticking, aborts running commands and waits for the tick in flight. */
  async stop(): Promise<void> {
    clearInterval(this.timer);
    this.controller.abort();
    // Stop waits for the tick in flight (aborted above); a failed tick is logged by its caller, not here.
    await this.running?.catch(() => undefined);
  }

  /** One pass over the due watches; a tick still running makes this one a no-op. Resolves with the polls made. */
  tick(): Promise<number> {
    if (this.running !== undefined || this.controller.signal.aborted) return Promise.resolve(0);
    this.running = this.pollDue().finally(() => {
      this.running = undefined;
    });
    return this.running;
  }

  private async pollDue(): Promise<number> {
    const due = (await this.options.store.listDue(isoFromMs(this.now()))).slice(0, MAX_DUE_PER_TICK);
    let next = 0;
    let polled = 0;
    const worker = async (): Promise<void> => {
      while (next < due.length && !this.controller.signal.aborted) {
        const row = due[next++] as WatchRow;
        try {
          if (await this.pollOne(row)) polled++;
        } catch (error) {
          if (this.controller.signal.aborted) return;
          this.options.logger.error(
            { watchId: row.watchId, wsId: row.wsId, err: describeError(error) },
            'watch poll failed',
          );
        }
      }
    };
    await Promise.all(Array.from({ length: Math.min(PARALLEL_POLLS, due.length) }, () => worker()));
    return polled;
  }

  /** Claims, runs, records and (when it fired or ended) delivers one watch. False when another poller had it. */
  private async pollOne(row: WatchRow): Promise<boolean> {
    const { store } = this.options;
    const leaseUntil = isoFromMs(this.now() + this.options.commandTimeoutMs + 60_000);
    if (row.nextPoll === null || !(await store.claim(row.watchId, row.nextPoll, leaseUntil))) return false;
    const pollCount = row.pollCount + 1;
    const command = sanitizeCommand(row.command);
    if (findBlockedPattern(command) !== undefined) {
      await store.update(row.watchId, { active: false, nextPoll: null, pollCount });
      return true;
    }
    const poll = await this.run(row, command);
    const outcome = checkStopCondition(row.stopOn, {
      output: poll.output,
      exitCode: poll.exitCode,
      prevOutput: row.pollCount === 0 ? null : row.lastOutput,
    });
    const conditionMode = row.stopOn !== null && row.stopOn.trim() !== '';
    const atLimit = pollCount >= row.maxPolls;
    // A met condition and an unusable condition end the watch; a change (no condition) is reported and watching goes on.
    const isFinal = atLimit || outcome.isError || (conditionMode && outcome.fired);
    const finishedAt = this.now();
    await store.update(row.watchId, {
      pollCount,
      lastOutput: poll.output,
      lastExitCode: poll.exitCode,
      lastPoll: isoFromMs(finishedAt),
      ...(isFinal ? { active: false, nextPoll: null } : { nextPoll: isoFromMs(finishedAt + row.intervalSecs * 1000) }),
    });
    if (!outcome.fired && !isFinal) return true;
    const text = formatWatchMessage({
      name: row.name,
      command: row.command,
      stopOn: conditionMode ? row.stopOn : null,
      pollCount,
      maxPolls: row.maxPolls,
      elapsedSeconds: (finishedAt - Date.parse(`${row.created}Z`)) / 1000,
      output: poll.output,
      isFinal,
      reason: outcome.fired || outcome.isError ? outcome.reason : 'max polls reached',
    });
    await this.deliver({ wsId: row.wsId, watchId: row.watchId, name: row.name, text });
    return true;
  }

  private run(row: WatchRow, command: string): Promise<PollOutcome> {
    const sandbox = this.options.sandbox;
    return runWatchCommand(command, {
      cwd: this.options.cwdFor(row.wsId),
      timeoutMs: this.options.commandTimeoutMs,
      signal: this.controller.signal,
      ...(sandbox === undefined ? {} : { sandbox }),
    });
  }

  private async deliver(delivery: WatchDelivery): Promise<void> {
    try {
      const delivered = await this.options.deliver(delivery);
      if (delivered) return;
      // The workstream was closed or deleted: nobody can read this watch any more.
      this.options.logger.warn(
        { watchId: delivery.watchId, wsId: delivery.wsId },
        'watch result not delivered: the workstream is gone; watch cancelled',
      );
      await this.options.store.update(delivery.watchId, { active: false, nextPoll: null });
    } catch (error) {
      this.options.logger.error(
        { watchId: delivery.watchId, wsId: delivery.wsId, err: describeError(error) },
        'watch result delivery failed',
      );
    }
  }
}
