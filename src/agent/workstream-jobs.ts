/** The jobs of a workstream's queue: a message to answer, or a turn resumed from its pending approval. */
import type { MessageOrigin } from './events.js';
import type { ContentPart } from './messages.js';
import type { InboundClaim } from '../storage/inbound-event-store.js';
import type { StoredApprovalItems, TurnApprovalDecision, TurnStart } from './turn/turn-types.js';

/** Watch-triggered turns that may run in a row without a message from a person. */
export const MAX_WATCH_CHAIN = 5;

/** What the thread shows (as the turn's answer) when a watch result is held back by the chain limit. */
export const WATCH_HELD_NOTE = `A watch result arrived, but ${MAX_WATCH_CHAIN} watch-triggered turns already ran in a row without a message from you. It is kept in the conversation and will be read with your next message.`;

/** A message accepted while a turn ran, as stored for a restart (ADR 0030). */
export interface WaitingMessage {
  turnId: string;
  content: string | ContentPart[];
  origin: MessageOrigin;
}

export type Job =
  /** `resumed`: the resumption of a turn a restart interrupted (ADR 0013); it is journalled so it never resumes twice. */
  /** `waited`: the message was stored as waiting (ADR 0030); its row goes with the turn's *accepted* write. */
  /** `receipt`: the message's inbound ledger row, written with its *waiting* write and its *accepted* write (ignored when present). */
  | {
      kind: 'user';
      turnId: string;
      content: string | ContentPart[];
      origin: MessageOrigin;
      resumed?: boolean;
      waited?: boolean;
      receipt?: InboundClaim;
    }
  | {
      kind: 'resume';
      turnId: string;
      approvalId: string;
      stored: StoredApprovalItems;
      decision: Promise<TurnApprovalDecision>;
    };

/** How a job's turn starts. */
export function turnStartOf(job: Job): TurnStart {
  return job.kind === 'user'
    ? { kind: 'user', message: { role: 'user', content: job.content } }
    : { kind: 'resume', approvalId: job.approvalId, stored: job.stored, decision: job.decision };
}

/** What the job's turn records in the turn log at its *accepted* write. */
export function logEntryOf(job: Job): { resumed: boolean; waited: boolean; receipt?: InboundClaim } {
  if (job.kind !== 'user') return { resumed: false, waited: false };
  return {
    resumed: job.resumed === true,
    waited: job.waited === true,
    ...(job.receipt === undefined ? {} : { receipt: job.receipt }),
  };
}
