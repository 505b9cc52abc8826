/**
 * The notify outbox (`notify_outbox`, `notify_idempotency`): every notification target is a row, accepted before
 * the platform call and settled after it, so a crash in between is delivered after the restart; an
 * `Idempotency-Key` maps a token subject's key to the request whose result it replays.
 */

/** `accepted` until the outcome is known; every other status is final. */
export type OutboxStatus = 'accepted' | 'sent' | 'no_adapter' | 'failed' | 'timeout' | 'given_up';

/** Where a notification goes: a channel/thread by id, or a platform user (direct message). */
export interface OutboxDestination {
  kind: 'channel' | 'user';
  id: string;
}

export interface NewOutboxEntry {
  channelType: string;
  /** The target as reported in the answer (channel id, or the user's platform id). */
  channelId: string;
  destination: OutboxDestination;
  content: string;
  wsId: string;
  /** `accepted` (to be delivered) or a status known before delivery (`no_adapter`). */
  status: OutboxStatus;
}

export interface OutboxEntry extends NewOutboxEntry {
  outboxId: string;
  requestId: string;
  /** Index of the target within its request. */
  position: number;
  /** Delivery attempts started (the route's included). */
  attempts: number;
  messageId?: string;
  /** Where the message landed (the DM channel of a user target). */
  deliveredChannelId?: string;
}

export interface IdempotencyClaim {
  /** The token's subject: keys of different callers never collide. */
  subject: string;
  key: string;
  /** Hash of the request (target, content, ws_id): a reused key with another request is refused. */
  fingerprint: string;
}

export type AcceptOutcome =
  | { kind: 'accepted'; requestId: string; entries: OutboxEntry[] }
  /** The key was used within the retention window: nothing was inserted. */
  | { kind: 'existing'; requestId: string; fingerprint: string; entries: OutboxEntry[] };

export interface AcceptInput {
  entries: readonly NewOutboxEntry[];
  idempotency?: IdempotencyClaim;
  /** `accepted` rows are not picked up by recovery before this many milliseconds (the route delivers them). */
  leaseMs: number;
  /** A key older than this (ISO time) counts as unused and is replaced. */
  keyNotBefore: string;
}

export interface OutboxSettlement {
  status: Exclude<OutboxStatus, 'accepted'>;
  messageId?: string;
  deliveredChannelId?: string;
}

export interface NotifyOutboxStore {
  /** Inserts the request's rows (and its key) in one transaction, or returns the request an unexpired key names. */
  accept(input: AcceptInput): Promise<AcceptOutcome>;
  /** Records the final outcome of one row. */
  settle(outboxId: string, settlement: OutboxSettlement): Promise<void>;
  /**
   * Claims up to `limit` `accepted` rows whose lease has passed: each claimed row's lease moves `leaseMs` ahead
   * and its attempts grow by one (a conditional update, so two processes never claim the same row).
   */
  claimDue(limit: number, leaseMs: number): Promise<OutboxEntry[]>;
  /** Leaves a claimed row `accepted` and due again in `delayMs`. */
  retryLater(outboxId: string, delayMs: number): Promise<void>;
  /** Deletes keys created before `before` (ISO time) and final rows last changed before it; returns rows deleted. */
  purge(before: string): Promise<number>;
}
