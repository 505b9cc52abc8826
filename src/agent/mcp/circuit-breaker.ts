/** Per-server circuit breaker: 3 failures open it for 30 s, doubling to 300 s with jitter; half-open probes; decay on success. */

export interface CircuitBreakerOptions {
  threshold?: number;
  baseCooldownMs?: number;
  maxCooldownMs?: number;
  /** Monotonic clock in ms (injectable for tests). */
  now?: () => number;
  /** Jitter source in [0, 1) for one server name. */
  jitter?: (name: string) => number;
}

export type BreakerGate = { isAllowed: true; isProbe: boolean } | { isAllowed: false; remainingMs: number };

interface BreakerEntry {
  failures: number;
  openUntil: number | undefined;
  trips: number;
}

/** Deterministic per-name jitter within this process (like the reference's seeded RNG). */
function defaultJitter(name: string): number {
  let hash = 2166136261;
  for (const char of name) hash = Math.imul(hash ^ char.charCodeAt(0), 16777619);
  return ((hash >>> 0) % 10000) / 10000;
}

export class CircuitBreaker {
  private readonly entries = new Map<string, BreakerEntry>();
  private readonly threshold: number;
  private readonly baseCooldownMs: number;
  private readonly maxCooldownMs: number;
  private readonly now: () => number;
  private readonly jitter: (name: string) => number;

  constructor(options: CircuitBreakerOptions = {}) {
    this.threshold = options.threshold ?? 3;
    this.baseCooldownMs = options.baseCooldownMs ?? 30_000;
    this.maxCooldownMs = options.maxCooldownMs ?? 300_000;
    this.now = options.now ?? (() => performance.now());
    this.jitter = options.jitter ?? defaultJitter;
  }

  /**
   * Called before every dispatch. While open and cooling down the call is refused; once the cooldown expired the
   * deadline is dropped (half-open) and callers pass; the first failure re-opens with the next, longer cooldown.
   */
  gate(name: string): BreakerGate {
    const entry = this.entries.get(name);
    if (entry?.openUntil === undefined) return { isAllowed: true, isProbe: false };
    const remainingMs = entry.openUntil - this.now();
    if (remainingMs > 0) return { isAllowed: false, remainingMs };
    entry.openUntil = undefined;
    return { isAllowed: true, isProbe: true };
  }

  recordFailure(name: string): void {
    const entry = this.entry(name);
    entry.failures += 1;
    if (entry.failures < this.threshold || entry.openUntil !== undefined) return;
    const cooldown = Math.min(this.baseCooldownMs * 2 ** entry.trips, this.maxCooldownMs);
    entry.openUntil = this.now() + cooldown + this.jitter(name) * cooldown * 0.1;
    entry.trips += 1;
  }

  /** Closes the breaker; the trip count decays by one so a flapping server keeps escalating. */
  recordSuccess(name: string): void {
    const entry = this.entries.get(name);
    if (!entry) return;
    entry.failures = 0;
    entry.openUntil = undefined;
    entry.trips = Math.max(0, entry.trips - 1);
    if (entry.trips === 0) this.entries.delete(name);
  }

  /** Forgets everything about a server (manual reconnect, removal). */
  clear(name: string): void {
    this.entries.delete(name);
  }

  isOpen(name: string): boolean {
    const until = this.entries.get(name)?.openUntil;
    return until !== undefined && until > this.now();
  }

  /** Cooldown deadline when open (tests and diagnostics). */
  openUntil(name: string): number | undefined {
    return this.entries.get(name)?.openUntil;
  }

  failures(name: string): number {
    return this.entries.get(name)?.failures ?? 0;
  }

  trips(name: string): number {
    return this.entries.get(name)?.trips ?? 0;
  }

  private entry(name: string): BreakerEntry {
    let entry = this.entries.get(name);
    if (!entry) {
      entry = { failures: 0, openUntil: undefined, trips: 0 };
      this.entries.set(name, entry);
    }
    return entry;
  }
}
