/** Turns in flight (`turn_journal`): what a restart needs to settle a turn the process did not finish. */
import type { Message, UserMessage } from '../agent/messages.js';
import type { InboundClaim } from './inbound-event-store.js';

export interface TurnJournalRow {
  turnId: string;
  wsId: string;
  /** The turn is itself the resumption of an interrupted one: it is never resumed again. */
  resumed: boolean;
  /** Text the model had streamed in the current call when the row was last written. */
  partialText: string;
  /** The restart already put the partial text into the history (a second restart must not add it again). */
  settled: boolean;
  started: string;
  updated: string;
}

/** A message accepted while a turn ran, not started yet (`queued_messages`). */
export interface QueuedMessageRow {
  turnId: string;
  wsId: string;
  /** The message as JSON (a string or content parts). */
  content: string;
  origin: 'user' | 'watch';
  seq: number;
}

/**
 * One change of the turn log. `begin` (the *accepted* commit point, docs/design/durability.md) stores the turn's user
 * message when it has one, replaces every other turn row of the workstream (a newer turn supersedes them) and removes
 * the turn's waiting message, all in one transaction; `queue` stores a waiting message; `drop` removes every waiting
 * message of a workstream (it was closed); `steer` stores a steer's message in the history and removes its waiting row
 * (`turnId` is the steer's), in one transaction, when the running turn reads it (src/agent/steer-inbox.ts).
 */
export type TurnJournalChange =
  /** `waited`: the message waited behind another turn (its `queue` row goes now). */
  /** `receipt`: the inbound ledger row of the message (a single-instance gateway writes it here, not before). */
  | {
      kind: 'begin';
      turnId: string;
      wsId: string;
      resumed: boolean;
      message?: Message;
      waited?: boolean;
      receipt?: InboundClaim;
    }
  | { kind: 'partial'; turnId: string; wsId: string; partialText: string }
  | { kind: 'end'; turnId: string; wsId: string }
  | ({ kind: 'queue'; receipt?: InboundClaim } & QueuedMessageRow)
  | { kind: 'drop'; wsId: string }
  | { kind: 'steer'; turnId: string; wsId: string; message: UserMessage };

export interface TurnJournalStore {
  /** Applies changes in order, in one transaction. A `partial` for a row that is gone changes nothing. */
  apply(changes: readonly TurnJournalChange[]): Promise<void>;
  /** Every row, oldest first (at start-up: the interrupted turns). */
  list(): Promise<TurnJournalRow[]>;
  /** The row of a workstream's interrupted turn, if any. */
  forWorkstream(wsId: string): Promise<TurnJournalRow | undefined>;
  /** Marks a row settled (its partial text is in the history). */
  markSettled(turnId: string): Promise<void>;
  remove(turnId: string): Promise<void>;
  /** The messages waiting in a workstream, in acceptance order. */
  queued(wsId: string): Promise<QueuedMessageRow[]>;
  /** Workstreams with waiting messages. */
  queuedWorkstreams(): Promise<string[]>;
  /** Workstreams with a turn in flight (a journal row), without the rows' streamed text. */
  turningWorkstreams(): Promise<string[]>;
}
