/** Cancellation helpers: abort detection, signal combination, and racing a promise against a signal. */
import { setMaxListeners } from 'node:events';

export function isAbortError(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  return (
    error.name === 'AbortError' ||
    error.name === 'APIUserAbortError' ||
    (error as { code?: unknown }).code === 'ABORT_ERR'
  );
}

/** A signal that aborts when any input aborts or after `timeoutMs`. */
export function combineSignals(signals: readonly (AbortSignal | undefined)[], timeoutMs?: number): AbortSignal {
  const list = signals.filter((s): s is AbortSignal => s !== undefined);
  if (timeoutMs !== undefined) list.push(AbortSignal.timeout(timeoutMs));
  return AbortSignal.any(list);
}

/**
 * Settles like `promise`, or rejects as soon as `signal` aborts: with `abortError()` when given, else with the
 * signal's reason. The abort listener is removed when either settles; a later rejection of `promise` stays handled.
 */
export function untilAborted<T>(promise: Promise<T>, signal: AbortSignal, abortError?: () => Error): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(abortError ? abortError() : (signal.reason as Error));
    if (signal.aborted) onAbort();
    else signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error as Error);
      },
    );
  });
}

export interface LinkedSignal {
  /** Aborts when the parent aborts (with its reason) or when the timeout passes (with `timeoutReason`). */
  signal: AbortSignal;
  /** Unlinks from the parent and clears the timer; call it when the work is done. */
  release(): void;
}

/**
 * A short-lived signal of one operation's own, linked to a long-lived parent. Libraries that add abort listeners and
 * never remove them (discord.js REST, the MCP SDK, fetch on Node 20) get this one instead of the parent, so nothing
 * per call stays attached to the parent after `release`.
 */
export function linkedSignal(
  parent: AbortSignal | undefined,
  options: { timeoutMs?: number; timeoutReason?: () => unknown } = {},
): LinkedSignal {
  const controller = new AbortController();
  const forward = (): void => controller.abort(parent?.reason);
  if (parent?.aborted) forward();
  else parent?.addEventListener('abort', forward, { once: true });
  const { timeoutMs, timeoutReason } = options;
  // Purpose: timeout (the linked signal aborts once timeoutMs passed).
  const timer =
    timeoutMs === undefined
      ? undefined
      : setTimeout(
          () => controller.abort(timeoutReason?.() ?? new DOMException('timed out', 'TimeoutError')),
          timeoutMs,
        );
  timer?.unref();
  return {
    signal: controller.signal,
    release: () => {
      clearTimeout(timer);
      parent?.removeEventListener('abort', forward);
    },
  };
}

/** Signals made by `scopedSignal`: short-lived already, so a call may be given one directly. */
const scopes = new WeakSet<AbortSignal>();

/**
 * A linked signal for a bounded run of calls that ends together (one answer segment's posts and edits): the listeners
 * a library leaves on it go with it once the run is over, so `withLinkedSignal` hands it to each call as it is rather
 * than linking one more signal per call (on the path of an answer's final edit). Release it when the run ends.
 */
export function scopedSignal(parent: AbortSignal): LinkedSignal {
  const linked = linkedSignal(parent);
  // A long answer's segment makes dozens of edits, each leaving discord.js's listener here until the run ends: that
  // is the design, not a leak, so Node's "possible memory leak" warning (at 11 listeners) is turned off for it.
  setMaxListeners(0, linked.signal);
  scopes.add(linked.signal);
  return linked;
}

/**
 * Runs `call` on a linked signal of its own (see `linkedSignal`), released when it settles; a `scopedSignal` without a
 * timeout to add is passed through as it is.
 */
export async function withLinkedSignal<T>(
  parent: AbortSignal | undefined,
  call: (own: AbortSignal) => Promise<T>,
  options: { timeoutMs?: number; timeoutReason?: () => unknown } = {},
): Promise<T> {
  if (parent !== undefined && options.timeoutMs === undefined && scopes.has(parent)) return call(parent);
  const linked = linkedSignal(parent, options);
  try {
    return await call(linked.signal);
  } finally {
    linked.release();
  }
}
