/**
 * The messages this process claimed, remembered so a single-instance gateway (SQLite, where a second instance is
 * refused) can admit a new message without waiting for the ledger's insert (ADR 0028). A message is known to be new
 * when its key sorts above every message recorded before this process started (the platform's floor, read once at
 * start: message ids grow with time, and no other process writes the ledger) and above every key this memory has
 * let go of; a replay or retry of it within this process is then found here. Anything else (an older message, a
 * platform whose floor is not read yet) is claimed in the database as before.
 */
import { claimId, messageSortKey, type InboundClaim } from '../storage/inbound-event-store.js';

/** Keys remembered; the oldest beyond this are let go (their platform's floor rises above them). */
export const REMEMBERED_CLAIMS = 50_000;

export class RecentClaims {
  /** claimId → its platform and sort key, oldest first. */
  private readonly claimed = new Map<string, { platform: string; key: string }>();
  /** Per platform: nothing at or below it is known to be new here (the stored floor, raised by what was let go). */
  private readonly floors = new Map<string, string>();

  constructor(private readonly limit = REMEMBERED_CLAIMS) {}

  /** Sets a platform's floor (the highest stored message key when this process started). */
  setFloor(platform: string, floor: string): void {
    const current = this.floors.get(platform);
    this.floors.set(platform, current !== undefined && current > floor ? current : floor);
  }

  /**
   * 'new' (remembered now) when the claim is a message above its platform's floor that this process has not seen,
   * 'duplicate' when this process claimed it already, 'unknown' when only the database can tell.
   */
  check(claim: InboundClaim): 'new' | 'duplicate' | 'unknown' {
    const id = claimId(claim.platform, claim.eventKey);
    if (this.claimed.has(id)) return 'duplicate';
    const floor = this.floors.get(claim.platform);
    if (floor === undefined || claim.messageId === undefined || claim.messageId === '') return 'unknown';
    const key = messageSortKey(claim.messageId);
    if (key <= floor) return 'unknown';
    this.remember(claim.platform, id, key);
    return 'new';
  }

  /**
   * After the database granted a claim: true when it is still this process's first (a message admitted as new
   * meanwhile is the same event, already being handled), and remembered from now on.
   */
  granted(claim: InboundClaim): boolean {
    const id = claimId(claim.platform, claim.eventKey);
    if (this.claimed.has(id)) return false;
    if (this.floors.has(claim.platform) && claim.messageId !== undefined && claim.messageId !== '')
      this.remember(claim.platform, id, messageSortKey(claim.messageId));
    return true;
  }

  /** Keys remembered (tests). */
  get size(): number {
    return this.claimed.size;
  }

  private remember(platform: string, id: string, key: string): void {
    this.claimed.set(id, { platform, key });
    if (this.claimed.size <= this.limit) return;
    const oldest = this.claimed.entries().next().value;
    if (oldest === undefined) return;
    this.claimed.delete(oldest[0]);
    // Let go of a key only by raising the floor above it: a replay of it is then claimed in the database again.
    this.setFloor(oldest[1].platform, oldest[1].key);
  }
}
