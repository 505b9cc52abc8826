/** Cancellation helpers: abort detection, signal combination, and racing a promise against a signal. */

export function isAbortError(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  return error.name === 'AbortError' || error.name === 'APIUserAbortError' || (error as { code?: unknown }).code === 'ABORT_ERR';
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
