/** The inbound dedup ledger (`inbound_events`): one row per platform event, claimed before any work. */

export interface InboundClaim {
  platform: string;
  /** Unique per platform: `msg:<conversation>:<message id>` for messages, `ix:<interaction id>` for interactions. */
  eventKey: string;
  /** Conversation of a message (channel or thread id); absent for interactions. */
  channelId?: string | undefined;
  /** Platform message id (snowflake, Slack ts); absent for interactions. */
  messageId?: string | undefined;
  /** Epoch milliseconds. */
  receivedAt: number;
  /**
   * The gateway process claiming a message before the message is stored: its row is *pending* until the message's
   * write (or the end of its handling) settles it, and catch-up may take a pending row of a process that died
   * (`reclaim`). Absent: the row is written settled (with the message, or for an event that stores nothing).
   */
  claimedBy?: string | undefined;
}

/** When a pending claim of another process may be taken again (`InboundEventStore.reclaim`). */
export interface ReclaimRule {
  /**
   * PostgreSQL: the claimer must have no `services` heartbeat at or after this ISO time (it died). Absent on a single
   * instance, where every other claimer was an earlier, dead process (the instance lock, ADR 0023).
   */
  aliveSince?: string;
}

/** The newest message handled in a conversation. */
export interface InboundCursor {
  messageId: string;
  receivedAt: number;
}

export interface InboundEventStore {
  /**
   * Records the event; true when this call recorded it first, false when it was already there (a replay, a retry, a
   * catch-up overlap, another instance). One atomic insert-or-ignore on SQLite and PostgreSQL.
   */
  claim(claim: InboundClaim): Promise<boolean>;
  /**
   * Records an event already known to be new (the single-instance ledger admits it from memory, ADR 0028) with the
   * hot path's next write batch (ADR 0031): in the same transaction as the writes the message leads to, or an
   * earlier one, never a later one. Resolves as `claim` does, once committed.
   */
  claimBehind(claim: InboundClaim): Promise<boolean>;
  /**
   * Takes a *pending* claim of another process that died before the message was stored (see `ReclaimRule`): true when
   * this call took it (the event is handled again), false when it is settled, fresh, or its claimer is alive.
   */
  reclaim(claim: InboundClaim & { claimedBy: string }, rule: ReclaimRule): Promise<boolean>;
  /**
   * The earliest message of the claim's conversation that sorts before it (`messageSortKey`: Slack `ts`, snowflake) and
   * is still *pending* with another claimer (not `claim.claimedBy`), whose heartbeat is at or after `rule.aliveSince`
   * when given; undefined when none. One indexed query (per-thread order across instances, docs/design/cluster.md).
   */
  earlierPending(claim: InboundClaim & { claimedBy: string }, rule: ReclaimRule): Promise<string | undefined>;
  /** The newest settled message of a conversation recorded before `beforeMs` (the catch-up cursor), if any. */
  cursor(platform: string, channelId: string, beforeMs: number): Promise<InboundCursor | undefined>;
  /** Conversations with messages recorded after `sinceMs` (catch-up covers them even when not configured). */
  recentConversations(platform: string, sinceMs: number): Promise<string[]>;
  /** The highest `messageSortKey` of the platform's recorded messages ('' when none): nothing above it was handled. */
  messageFloor(platform: string): Promise<string>;
  /** Deletes rows recorded before `beforeMs`; resolves with how many. */
  prune(beforeMs: number): Promise<number>;
}

/** The identity of a claim across platforms. */
export const claimId = (platform: string, eventKey: string): string => `${platform}\u0000${eventKey}`;

/**
 * A text key whose order is the numeric order of platform message ids: Discord snowflakes (decimal, varying length)
 * and Slack timestamps (`1700000000.000123`). Anything else keeps its text.
 */
export function messageSortKey(messageId: string): string {
  const match = /^(\d+)(?:\.(\d+))?$/.exec(messageId);
  if (!match) return messageId;
  const whole = (match[1] ?? '').padStart(24, '0');
  return match[2] === undefined ? whole : `${whole}.${match[2].padEnd(6, '0')}`;
}
