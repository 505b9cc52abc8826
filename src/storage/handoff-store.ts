/** Work one instance hands to another (`cluster_handoffs`, ADR 0021): the row is the truth, a NOTIFY only wakes. */
import type { InboundClaim } from './inbound-event-store.js';

/** 'inbound' (a message), 'interaction' (a click), 'deliver' (a watch result), 'reply' (the answer to a handed-off click, back to its receiver). */
export type HandoffKind = 'inbound' | 'interaction' | 'deliver' | 'reply';

export interface Handoff {
  id: string;
  target: string;
  wsId: string;
  kind: HandoffKind;
  /** JSON text written by the sender. */
  payload: string;
  createdAt: number;
  claimedAt: number | null;
  claimedBy: string | null;
}

export interface HandoffStore {
  /** Writes the row and (PostgreSQL) notifies `sandpiper_cluster` with `<target> <id>` in the same transaction. */
  /** `receipt`: the handed message's pending inbound claim, settled in the same transaction (docs/design/durability.md). */
  create(input: {
    target: string;
    wsId: string;
    kind: HandoffKind;
    payload: string;
    createdAt: number;
    receipt?: InboundClaim;
  }): Promise<Handoff>;
  /** Conditional claim (`WHERE claimed_at IS NULL`): true for exactly one claimer. */
  claim(id: string, by: string, now: number): Promise<boolean>;
  get(id: string): Promise<Handoff | undefined>;
  /** Unclaimed rows addressed to `target`, oldest first. */
  listUnclaimed(target: string, limit: number): Promise<Handoff[]>;
  /** Unclaimed rows of a workstream (whoever they were addressed to), oldest first: what a taker-over inherits. */
  listUnclaimedFor(wsId: string): Promise<Handoff[]>;
  /** Deletes claimed rows claimed before `beforeMs`; resolves with how many. */
  prune(beforeMs: number): Promise<number>;
  /**
   * Calls `onWake(target, id)` for each notification on `sandpiper_cluster` (PostgreSQL LISTEN on a dedicated
   * connection, reconnected after an error). SQLite has one instance: resolves with a no-op closer.
   */
  listen(onWake: (target: string, id: string) => void, onError: (error: unknown) => void): Promise<() => Promise<void>>;
}

export const HANDOFF_CHANNEL = 'sandpiper_cluster';
