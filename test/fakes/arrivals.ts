/**
 * What a fake receives, as events a test can await (`await fake.next('edit')`) instead of polling its records.
 * Only entries that arrive after `next` was called count, so a test sets up the wait before it acts. `until` waits for
 * a condition on the fake's state, checked now and again after each recorded entry (record once the state changed).
 */
interface Waiter<T> {
  match: (entry: T) => boolean;
  resolve: (entry: T) => void;
}

export class Arrivals<T> {
  private readonly waiters = new Set<Waiter<T>>();
  private readonly watchers = new Set<() => void>();

  /** Called by the fake for every entry it records. */
  record(entry: T): void {
    for (const waiter of [...this.waiters]) {
      if (!waiter.match(entry)) continue;
      this.waiters.delete(waiter);
      waiter.resolve(entry);
    }
    for (const watcher of [...this.watchers]) watcher();
  }

  /**
   * Resolves with `probe`'s first value that is not undefined, null or false: checked now, then after each recorded
   * entry (no polling). Rejects naming `what` after `timeoutMs`, or with the probe's own error when it throws.
   */
  until<R>(probe: () => R | undefined | null | false, what: string, timeoutMs: number): Promise<R> {
    return new Promise<R>((resolve, reject) => {
      const settle = (outcome: () => void): void => {
        clearTimeout(timer);
        this.watchers.delete(check);
        outcome();
      };
      const check = (): void => {
        let value: R | undefined | null | false;
        try {
          value = probe();
        } catch (error) {
          settle(() => reject(error instanceof Error ? error : new Error(String(error))));
          return;
        }
        if (value !== undefined && value !== null && value !== false) settle(() => resolve(value));
      };
      // Time-out: the condition never held; the message names what was awaited.
      const timer = setTimeout(
        () => settle(() => reject(new Error(`timed out after ${timeoutMs} ms waiting for ${what}`))),
        timeoutMs,
      );
      this.watchers.add(check);
      check();
    });
  }

  /** The next entry `match` accepts; rejects naming `what` after `timeoutMs`. */
  next(match: (entry: T) => boolean, what: string, timeoutMs: number): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiters.delete(waiter);
        reject(new Error(`timed out after ${timeoutMs} ms waiting for ${what}`));
      }, timeoutMs);
      const waiter: Waiter<T> = {
        match,
        resolve: (entry) => {
          clearTimeout(timer);
          resolve(entry);
        },
      };
      this.waiters.add(waiter);
    });
  }
}
