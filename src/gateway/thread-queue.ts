/** Per-thread serialisation: inbound work for one thread runs in arrival order, never interleaved. */

export type QueueStrategy = 'queue' | 'drop';

export interface ThreadQueueOptions {
  /** `queue` (default) runs every task in order; `drop` refuses a task while one is running or waiting. */
  strategy?: QueueStrategy;
  /** Most tasks that may wait behind the running one per key (default 50). */
  maxPending?: number;
}

interface Lane {
  tail: Promise<void>;
  size: number;
}

/** Serial lanes keyed by thread; lanes are dropped when they drain, so memory follows active threads. */
export class ThreadQueue {
  private readonly lanes = new Map<string, Lane>();
  private readonly strategy: QueueStrategy;
  private readonly maxPending: number;

  constructor(options: ThreadQueueOptions = {}) {
    this.strategy = options.strategy ?? 'queue';
    this.maxPending = options.maxPending ?? 50;
  }

  /**
   * Runs `task` after every earlier task of `key`. Resolves `true` when it ran (its own errors are passed to
   * `onError`), `false` when refused because the lane is full (or busy, with the `drop` strategy).
   */
  run(key: string, task: () => Promise<void>, onError: (error: unknown) => void): Promise<boolean> {
    const lane = this.lanes.get(key) ?? { tail: Promise.resolve(), size: 0 };
    const limit = this.strategy === 'drop' ? 1 : this.maxPending + 1;
    if (lane.size >= limit) return Promise.resolve(false);
    lane.size += 1;
    this.lanes.set(key, lane);
    const done = lane.tail.then(async () => {
      try {
        await task();
      } catch (error) {
        onError(error);
      } finally {
        lane.size -= 1;
        if (lane.size === 0 && this.lanes.get(key) === lane) this.lanes.delete(key);
      }
    });
    lane.tail = done;
    return done.then(() => true);
  }

  /** Tasks running or waiting for `key`. */
  depth(key: string): number {
    return this.lanes.get(key)?.size ?? 0;
  }

  /** Waits until every lane has drained (shutdown). */
  async drain(): Promise<void> {
    await Promise.all([...this.lanes.values()].map((lane) => lane.tail));
  }
}
