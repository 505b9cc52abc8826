/** Time helpers: every stored timestamp is UTC ISO-8601 `YYYY-MM-DDTHH:MM:SS`, so strings sort by time. */

export function isoNow(now: Date = new Date()): string {
  return now.toISOString().slice(0, 19);
}

export function isoFromMs(ms: number): string {
  return new Date(ms).toISOString().slice(0, 19);
}

export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason instanceof Error ? signal.reason : new Error('aborted'));
      return;
    }
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(signal?.reason instanceof Error ? signal.reason : new Error('aborted'));
    };
    // Purpose: a plain delay (backoff and pauses of the callers), cancelled by the signal.
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
