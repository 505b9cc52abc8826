/**
 * What a fake receives, as events a test can await (`await fake.next('edit')`) instead of polling its records.
 * Only entries that arrive after `next` was called count, so a test sets up the wait before it acts.
 */
interface Waiter<T> {
  match: (entry: T) => boolean;
  resolve: (entry: T) => void;
}

export class Arrivals<T> {
  private readonly waiters = new Set<Waiter<T>>();

  /** Called by the fake for every entry it records. */
  record(entry: T): void {
    for (const waiter of [...this.waiters]) {
      if (!waiter.match(entry)) continue;
      this.waiters.delete(waiter);
      waiter.resolve(entry);
    }
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
