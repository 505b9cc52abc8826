/**
 * Reads grouped by the one write-behind engine's loop (`GroupCommit`): every `load(key)` made before the group starts
 * (the next microtask, or the end of the group being read) goes into one `loadMany(keys)` call, so a burst of lookups
 * (a thousand threads opened at once) costs a few queries, not one each.
 */
import { GroupCommit, type Schedule } from './group-commit.js';

type Waiter<V> = { resolve: (value: V | undefined) => void; reject: (error: unknown) => void };

export class TickBatch<V> {
  private waiting = new Map<string, Array<Waiter<V>>>();
  private readonly engine: GroupCommit;

  constructor(
    private readonly loadMany: (keys: string[]) => Promise<Map<string, V>>,
    options: { schedule?: Schedule } = {},
  ) {
    this.engine = new GroupCommit({ hasPending: () => this.waiting.size > 0, commitNext: () => this.run() }, options);
  }

  load(key: string): Promise<V | undefined> {
    return new Promise((resolve, reject) => {
      const waiters = this.waiting.get(key);
      if (waiters === undefined) this.waiting.set(key, [{ resolve, reject }]);
      else waiters.push({ resolve, reject });
      this.engine.kick();
    });
  }

  private async run(): Promise<void> {
    const group = this.waiting;
    this.waiting = new Map();
    try {
      const found = await this.loadMany([...group.keys()]);
      for (const [key, waiters] of group) for (const waiter of waiters) waiter.resolve(found.get(key));
    } catch (error) {
      for (const waiters of group.values()) for (const waiter of waiters) waiter.reject(error);
    }
  }
}
