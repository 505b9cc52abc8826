/** Cancellation helpers: abort detection and signal combination. */

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
