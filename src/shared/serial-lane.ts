/** Serial lanes: tasks of one key run one after another in arrival order; a lane is dropped when it drains. */

/** One lane: `run` starts each task after the previous one settled (a failure does not stop the lane). */
export class SerialLane {
  /** Settles (never rejects) after the last task handed in. */
  private tail: Promise<void> = Promise.resolve();
  private pending = 0;

  run<T>(task: () => Promise<T>): Promise<T> {
    this.pending += 1;
    const next = this.tail.then(task);
    const settled = (): void => {
      this.pending -= 1;
    };
    this.tail = next.then(settled, settled);
    return next;
  }

  /** Tasks running or waiting. */
  get size(): number {
    return this.pending;
  }

  /** Resolves once every task handed in so far has settled. */
  idle(): Promise<void> {
    return this.tail;
  }
}

/** Serial lanes by key; memory follows the keys with work in flight. */
export class KeyedSerialLanes<K = string> {
  private readonly lanes = new Map<K, SerialLane>();

  run<T>(key: K, task: () => Promise<T>): Promise<T> {
    let lane = this.lanes.get(key);
    if (lane === undefined) {
      lane = new SerialLane();
      this.lanes.set(key, lane);
    }
    const owner = lane;
    return owner.run(task).finally(() => {
      if (owner.size === 0 && this.lanes.get(key) === owner) this.lanes.delete(key);
    });
  }

  /** Tasks running or waiting for `key`. */
  size(key: K): number {
    return this.lanes.get(key)?.size ?? 0;
  }

  /** Keys with work in flight. */
  get keys(): number {
    return this.lanes.size;
  }

  /** Resolves once every task handed in so far has settled. */
  async idle(): Promise<void> {
    await Promise.all([...this.lanes.values()].map((lane) => lane.idle()));
  }
}
