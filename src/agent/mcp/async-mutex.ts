/** A minimal FIFO async mutex: serializes connect/teardown per server and prompt syncs. */

export class AsyncMutex {
  private tail: Promise<void> = Promise.resolve();

  /** Runs `work` after every earlier holder finished; the lock is released even when `work` throws. */
  async run<T>(work: () => Promise<T>): Promise<T> {
    const previous = this.tail;
    let release!: () => void;
    this.tail = new Promise<void>((resolve) => {
      release = resolve;
    });
    await previous;
    try {
      return await work();
    } finally {
      release();
    }
  }
}
