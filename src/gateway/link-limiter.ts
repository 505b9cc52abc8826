/** Sliding-window limit on /link attempts per platform user (5 an hour), kept in a bounded map. */
import { LRUCache } from 'lru-cache';

const MAX_USERS = 2048;

export class LinkLimiter {
  private readonly attempts = new LRUCache<string, number[]>({ max: MAX_USERS });

  constructor(
    private readonly limit = 5,
    private readonly windowMs = 3_600_000,
    private readonly now: () => number = Date.now,
  ) {}

  /** Records an attempt; false when the user already used up the window (the attempt is then refused). */
  tryAcquire(key: string): boolean {
    const now = this.now();
    const recent = (this.attempts.get(key) ?? []).filter((time) => now - time < this.windowMs);
    if (recent.length >= this.limit) {
      this.attempts.set(key, recent);
      return false;
    }
    recent.push(now);
    this.attempts.set(key, recent);
    return true;
  }
}
