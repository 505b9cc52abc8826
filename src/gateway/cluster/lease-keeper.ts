/**
 * The workstream leases this instance holds (ADR 0021): claimed when a workstream is opened, renewed together every
 * heartbeat, released when idle or at a graceful stop (handed over, expired at once, when a turn was interrupted). The
 * table is the truth; this map is a cache in front of it whose entries are trusted only until the expiry last written
 * for them (a renewal that fails does not extend them).
 */
import type { WorkstreamLeaseStore } from '../../storage/workstream-lease-store.js';

/** Who may run a workstream now: this instance (`takenFrom` = the dead instance it took the lease from) or another. */
export type LeaseClaim = { own: true; takenFrom?: string } | { own: false; holder: string };

export interface LeaseKeeperOptions {
  store: WorkstreamLeaseStore;
  instanceId: string;
  ttlMs: number;
  now?: () => number;
}

export class LeaseKeeper {
  /** wsId → when this instance claimed it and the expiry it last wrote (epoch ms). */
  private readonly held = new Map<string, { claimedAt: number; until: number }>();
  /** Claims in flight, shared by concurrent callers of one workstream. */
  private readonly claiming = new Map<string, Promise<LeaseClaim>>();
  private readonly now: () => number;

  constructor(private readonly options: LeaseKeeperOptions) {
    this.now = options.now ?? Date.now;
  }

  get instanceId(): string {
    return this.options.instanceId;
  }

  /** Takes the lease (absent, expired or ours) or names the live holder. */
  claim(wsId: string): Promise<LeaseClaim> {
    const entry = this.held.get(wsId);
    if (entry !== undefined && this.now() < entry.until) return Promise.resolve({ own: true });
    let pending = this.claiming.get(wsId);
    if (pending === undefined) {
      pending = this.claimStored(wsId);
      this.claiming.set(wsId, pending);
      // Only the bookkeeping chain: callers await `pending` and see its rejection; this copy must not raise another.
      void pending.finally(() => this.claiming.delete(wsId)).catch(() => undefined);
    }
    return pending;
  }

  private async claimStored(wsId: string): Promise<LeaseClaim> {
    const now = this.now();
    const { lease, takenFrom } = await this.options.store.claim(wsId, this.instanceId, now, now + this.options.ttlMs);
    if (lease.holder !== this.instanceId) {
      this.held.delete(wsId);
      return { own: false, holder: lease.holder };
    }
    this.held.set(wsId, { claimedAt: this.held.get(wsId)?.claimedAt ?? now, until: now + this.options.ttlMs });
    return takenFrom === undefined ? { own: true } : { own: true, takenFrom };
  }

  holds(wsId: string): boolean {
    return this.held.has(wsId);
  }

  /** Renews every held lease; resolves with the workstreams this instance lost (taken over while it could not renew). */
  async renew(): Promise<string[]> {
    const before = new Map(this.held);
    const until = this.now() + this.options.ttlMs;
    const kept = new Set(await this.options.store.renewAll(this.instanceId, until));
    const lost: string[] = [];
    for (const [wsId, entry] of before) {
      // Claimed again while the renewal ran: that claim decided.
      if (this.held.get(wsId) !== entry || this.claiming.has(wsId)) continue;
      if (kept.has(wsId)) {
        entry.until = Math.max(entry.until, until);
        continue;
      }
      this.held.delete(wsId);
      lost.push(wsId);
    }
    return lost;
  }

  /** Held leases claimed before `beforeMs` (candidates for release once their workstream went idle). */
  heldSince(beforeMs: number): string[] {
    return [...this.held].filter(([, entry]) => entry.claimedAt < beforeMs).map(([wsId]) => wsId);
  }

  /** Gives these leases back (their workstreams are idle here; the next message claims afresh, on any instance). */
  async release(wsIds: readonly string[]): Promise<number> {
    const mine = this.letGo(wsIds);
    return mine.length === 0 ? 0 : this.options.store.release(this.instanceId, mine);
  }

  /**
   * Hands these leases over (graceful stop with their turns interrupted): the rows stay, expired at once, so another
   * instance takes the workstreams over with their turns at its next heartbeat. Resolves with how many.
   */
  async handOver(wsIds: readonly string[]): Promise<number> {
    const mine = this.letGo(wsIds);
    return mine.length === 0 ? 0 : this.options.store.expireNow(this.instanceId, mine);
  }

  /** Stops holding those of `wsIds` held here and not being claimed again; returns them. */
  private letGo(wsIds: readonly string[]): string[] {
    const mine = wsIds.filter((wsId) => this.held.has(wsId) && !this.claiming.has(wsId));
    for (const wsId of mine) this.held.delete(wsId);
    return mine;
  }

  /** Forgets a lease without touching the row (it is gone or another instance has it). */
  drop(wsId: string): void {
    this.held.delete(wsId);
  }

  heldCount(): number {
    return this.held.size;
  }
}
