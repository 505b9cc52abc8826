/** Work in flight, as a set of promises: a lookup can wait for what was running, a stop for everything within a grace. */
export class InFlight {
  private readonly work = new Set<Promise<unknown>>();

  get size(): number {
    return this.work.size;
  }

  /** Tracks `work` until it settles; returns it unchanged (its rejection stays the caller's to handle). */
  track<T>(work: Promise<T>): Promise<T> {
    this.work.add(work);
    // Only the bookkeeping chain: the caller holds `work` and handles its rejection; this copy must not raise another.
    void work.finally(() => this.work.delete(work)).catch(() => undefined);
    return work;
  }

  /** What runs now (work tracked later is not in it). */
  snapshot(): Array<Promise<unknown>> {
    return [...this.work];
  }

  /** Resolves once everything running now has settled, or after `graceMs`; returns how many were still running then. */
  async settle(graceMs: number): Promise<number> {
    const running = this.snapshot();
    if (running.length === 0) return 0;
    let timer: NodeJS.Timeout | undefined;
    const expired = new Promise<'expired'>((resolve) => {
      // Purpose: timeout (the grace a drain gives the work still running).
      timer = setTimeout(() => resolve('expired'), graceMs);
    });
    try {
      const outcome = await Promise.race([Promise.allSettled(running), expired]);
      return outcome === 'expired' ? running.filter((work) => this.work.has(work)).length : 0;
    } finally {
      clearTimeout(timer);
    }
  }
}
