/**
 * An InboundEventStore whose claims are grouped by the one write-behind engine's loop (`GroupCommit`): every claim made
 * before the group starts (the next microtask, or the end of the group being written) goes into one INSERT, so a burst of messages costs one statement on the one
 * SQLite connection instead of one each, and the claims stop queueing behind each other. Each claim still resolves
 * only after its row is committed (ADR 0015): nothing is handled before its ledger row is durable.
 */
import { GroupCommit, type Schedule } from '../shared/group-commit.js';
import {
  claimId,
  type InboundClaim,
  type InboundCursor,
  type InboundEventStore,
  type ReclaimRule,
} from './inbound-event-store.js';

export interface ClaimingManyStore extends InboundEventStore {
  /** Records the claims; resolves with the `claimId`s this call recorded first. */
  claimMany(claims: readonly InboundClaim[]): Promise<Set<string>>;
}

interface Waiting {
  claim: InboundClaim;
  resolve: (recorded: boolean) => void;
  reject: (error: unknown) => void;
}

export class BatchedInboundClaims implements InboundEventStore {
  private waiting: Waiting[] = [];
  /** The one write-behind engine's loop: one group at a time, claims made meanwhile share the next. */
  private readonly engine: GroupCommit;

  constructor(
    private readonly store: ClaimingManyStore,
    options: { schedule?: Schedule } = {},
  ) {
    this.engine = new GroupCommit(
      { hasPending: () => this.waiting.length > 0, commitNext: () => this.write() },
      options,
    );
  }

  claim(claim: InboundClaim): Promise<boolean> {
    return new Promise((resolve, reject) => {
      this.waiting.push({ claim, resolve, reject });
      this.engine.kick();
    });
  }

  /** Not grouped here: the write batch it joins already shares one transaction. */
  claimBehind(claim: InboundClaim): Promise<boolean> {
    return this.store.claimBehind(claim);
  }

  reclaim(claim: InboundClaim & { claimedBy: string }, rule: ReclaimRule): Promise<boolean> {
    return this.store.reclaim(claim, rule);
  }

  earlierPending(claim: InboundClaim & { claimedBy: string }, rule: ReclaimRule): Promise<string | undefined> {
    return this.store.earlierPending(claim, rule);
  }

  cursor(platform: string, channelId: string, beforeMs: number): Promise<InboundCursor | undefined> {
    return this.store.cursor(platform, channelId, beforeMs);
  }

  recentConversations(platform: string, sinceMs: number): Promise<string[]> {
    return this.store.recentConversations(platform, sinceMs);
  }

  messageFloor(platform: string): Promise<string> {
    return this.store.messageFloor(platform);
  }

  prune(beforeMs: number): Promise<number> {
    return this.store.prune(beforeMs);
  }

  /** One group at a time; claims arriving meanwhile form the next group. A failure rejects the group's claims only. */
  private async write(): Promise<void> {
    const group = this.waiting;
    this.waiting = [];
    if (group.length === 0) return;
    // The same event twice in one group: the first is the claim, the others are duplicates of it.
    const first = new Map<string, Waiting>();
    const duplicates: Waiting[] = [];
    for (const entry of group) {
      const id = claimId(entry.claim.platform, entry.claim.eventKey);
      if (first.has(id)) duplicates.push(entry);
      else first.set(id, entry);
    }
    try {
      const recorded = await this.store.claimMany([...first.values()].map((entry) => entry.claim));
      for (const [id, entry] of first) entry.resolve(recorded.has(id));
      for (const entry of duplicates) entry.resolve(false);
    } catch (error) {
      for (const entry of group) entry.reject(error);
    }
  }
}
