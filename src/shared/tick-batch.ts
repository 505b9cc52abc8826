/**
 * Reads grouped by event-loop turn: every `load(key)` made before the next `setImmediate` goes into one
 * `loadMany(keys)` call, so a burst of lookups (a thousand threads opened at once) costs one query, not one each.
 */
export class TickBatch<V> {
  private waiting = new Map<string, Array<{ resolve: (value: V | undefined) => void; reject: (error: unknown) => void }>>();
  private scheduled = false;

  constructor(private readonly loadMany: (keys: string[]) => Promise<Map<string, V>>) {}

  load(key: string): Promise<V | undefined> {
    return new Promise((resolve, reject) => {
      const waiters = this.waiting.get(key);
      if (waiters === undefined) this.waiting.set(key, [{ resolve, reject }]);
      else waiters.push({ resolve, reject });
      if (this.scheduled) return;
      this.scheduled = true;
      setImmediate(() => void this.run());
    });
  }

  private async run(): Promise<void> {
    const group = this.waiting;
    this.waiting = new Map();
    this.scheduled = false;
    try {
      const found = await this.loadMany([...group.keys()]);
      for (const [key, waiters] of group) for (const waiter of waiters) waiter.resolve(found.get(key));
    } catch (error) {
      for (const waiters of group.values()) for (const waiter of waiters) waiter.reject(error);
    }
  }
}
