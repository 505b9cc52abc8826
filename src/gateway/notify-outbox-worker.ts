/**
 * Delivers the outbox rows no live request is delivering: rows `accepted` by a process that died before its
 * platform call (kill -9, power loss) are claimed once their lease passed, sent, and settled; a failed attempt is
 * retried with exponential backoff and given up after `maxAttempts` with a log line. Also forgets idempotency keys
 * and settled rows after 24 h.
 */
import { describeError } from '../shared/errors.js';
import { isoFromMs } from '../shared/time.js';
import type { OutboxEntry } from '../storage/notify-outbox-store.js';
import { deliverEntry, IDEMPOTENCY_WINDOW_MS, routeLeaseMs, type OutboxDeliveryDeps } from './notify-outbox.js';

export interface OutboxWorkerOptions {
  /** How often due rows are looked for (default 2 s). */
  intervalMs?: number;
  /** Attempts per row, the route's included, before it is given up (default 6). */
  maxAttempts?: number;
  /** Backoff after attempt n: `baseDelayMs * 2^(n-1)`, capped at 5 minutes (default 5 s). */
  baseDelayMs?: number;
  /** Rows claimed per sweep (default 20). */
  batch?: number;
}

export interface OutboxWorker {
  /** Sweeps at once, then every `intervalMs` until stopped. */
  start(): void;
  /** Runs one sweep (tests); resolves with the rows it handled. */
  sweep(): Promise<number>;
  /** Stops sweeping and waits for a running sweep. */
  stop(): Promise<void>;
}

const MAX_BACKOFF_MS = 300_000;
const PURGE_EVERY_MS = 3_600_000;

/** One delivery attempt of a claimed row: sent, rescheduled with backoff, or given up with a log line. */
async function handle(
  entry: OutboxEntry,
  deps: OutboxDeliveryDeps,
  maxAttempts: number,
  baseDelayMs: number,
): Promise<void> {
  try {
    if (!deps.sender.has(entry.channelType)) throw new Error(`no ${entry.channelType} adapter`);
    await deliverEntry(entry, deps, true);
    deps.logger.info(
      { outboxId: entry.outboxId, channelType: entry.channelType, attempts: entry.attempts },
      'notify.outbox.delivered',
    );
  } catch (error) {
    if (entry.attempts >= maxAttempts) {
      await deps.outbox.settle(entry.outboxId, { status: 'given_up' });
      deps.logger.warn(
        {
          outboxId: entry.outboxId,
          channelType: entry.channelType,
          attempts: entry.attempts,
          reason: describeError(error),
        },
        'notify.outbox.given_up',
      );
      return;
    }
    await deps.outbox.retryLater(entry.outboxId, Math.min(MAX_BACKOFF_MS, baseDelayMs * 2 ** (entry.attempts - 1)));
  }
}

export function createNotifyOutboxWorker(deps: OutboxDeliveryDeps, options: OutboxWorkerOptions = {}): OutboxWorker {
  const intervalMs = options.intervalMs ?? 2_000;
  const maxAttempts = options.maxAttempts ?? 6;
  const baseDelayMs = options.baseDelayMs ?? 5_000;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<number> | undefined;
  let stopped = false;
  let lastPurge = 0;

  async function sweepOnce(): Promise<number> {
    if (Date.now() - lastPurge >= PURGE_EVERY_MS) {
      lastPurge = Date.now();
      await deps.outbox.purge(isoFromMs(Date.now() - IDEMPOTENCY_WINDOW_MS));
    }
    const due = await deps.outbox.claimDue(options.batch ?? 20, routeLeaseMs(deps.timeoutMs));
    for (const entry of due) await handle(entry, deps, maxAttempts, baseDelayMs);
    return due.length;
  }

  function sweep(): Promise<number> {
    running ??= sweepOnce().finally(() => {
      running = undefined;
    });
    return running;
  }

  function schedule(): void {
    if (stopped) return;
    // Purpose: cadence (the outbox is polled for deliveries left behind).
    timer = setTimeout(() => {
      sweep()
        .catch((error: unknown) => deps.logger.error({ reason: describeError(error) }, 'notify.outbox.sweep_failed'))
        .finally(schedule);
    }, intervalMs);
    timer.unref();
  }

  return {
    start() {
      stopped = false;
      sweep()
        .catch((error: unknown) => deps.logger.error({ reason: describeError(error) }, 'notify.outbox.sweep_failed'))
        .finally(schedule);
    },
    sweep,
    async stop() {
      stopped = true;
      clearTimeout(timer);
      // Waits for the pass in flight; its failure is logged where it was started and its rows stay for the next sweep.
      await running?.catch(() => undefined);
    },
  };
}
