/** Which instance runs a workstream (`workstream_leases`, ADR 0021): claimed, renewed in bulk, taken over when expired. */

export interface WorkstreamLease {
  wsId: string;
  /** The holder's instance id (its `services.service_id`). */
  holder: string;
  /** Epoch ms. */
  expiresAt: number;
  acquiredAt: number;
}

export interface WorkstreamLeaseStore {
  /**
   * Takes the lease for `holder` until `expiresAt` when it is absent (insert-or-ignore), expired (conditional update
   * `WHERE expires_at < now`) or already held by `holder` (renewed). Resolves with the lease as it is afterwards: its
   * holder is `holder` when the claim succeeded, the live holder otherwise. `takenFrom` names the previous holder
   * when an expired lease of another instance was taken over.
   */
  claim(
    wsId: string,
    holder: string,
    now: number,
    expiresAt: number,
  ): Promise<{ lease: WorkstreamLease; takenFrom?: string }>;
  /** Extends every lease of `holder` to `expiresAt` in one UPDATE; resolves with the workstreams it still holds. */
  renewAll(holder: string, expiresAt: number): Promise<string[]>;
  /** Drops every lease of `holder` (graceful stop); resolves with how many. */
  releaseAll(holder: string): Promise<number>;
  /** Drops these leases where `holder` still holds them; resolves with how many. */
  release(holder: string, wsIds: readonly string[]): Promise<number>;
  /**
   * Drops the leases of `holder` that expired before `now` (a dead instance's idle workstreams: the next message
   * claims them afresh); a lease renewed or taken over meanwhile stays. Resolves with how many.
   */
  releaseExpired(holder: string, now: number): Promise<number>;
  /**
   * Marks these leases of `holder` expired at once (expiry 0, so no clock skew delays it), keeping the holder: a graceful
   * stop hands its interrupted turns to the next takeover scan instead of leaving them until the TTL runs out. Resolves
   * with how many.
   */
  expireNow(holder: string, wsIds: readonly string[]): Promise<number>;
  get(wsId: string): Promise<WorkstreamLease | undefined>;
  /** Leases of other instances that expired before `now` (the takeover scan's candidates), oldest first, at most `limit`. */
  listExpired(now: number, limit: number): Promise<WorkstreamLease[]>;
}
