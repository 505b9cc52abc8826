/** The AgentEvent union a workstream emits (names pinned in docs/architecture.md §5). */

/** A prepared tool call as shown to users (docs/architecture.md §6). */
export interface PreparedItem {
  callId: string;
  name: string;
  approvalLabel: string;
  header: string;
  preview: string;
  needsApproval: boolean;
  error?: string;
}

/** Who sent a message into a workstream: a person (default) or the watch runner. */
export type MessageOrigin = 'user' | 'watch';

/** `superseded`: another instance took the message over before it was stored; it answers, this turn shows nothing. */
export type TurnEndReason = 'done' | 'cancelled' | 'error' | 'superseded';

export type AgentEvent =
  /** `origin: 'watch'` marks a turn started by a watch result (the message is the result; channels show it). */
  | { type: 'turn-start'; turnId: string; userMessage: string; origin?: MessageOrigin }
  | { type: 'text-delta'; text: string }
  | { type: 'reasoning-delta'; text: string }
  /** `answered`: the call's text is the turn's complete answer, already committed to the history. */
  | { type: 'model-call-end'; finishReason: string; answered?: boolean }
  | { type: 'tool-calls'; items: PreparedItem[] }
  /** `kind: 'network'`: a sandboxed process asks to reach a host (one item; Allow once / Always here / Deny). */
  | { type: 'approval-request'; approvalId: string; items: PreparedItem[]; ownerUserId: string; kind?: 'network' }
  | {
      type: 'approval-resolved';
      approvalId: string;
      /** `decided` = a person decided and the turn took it; `cancelled` = it ended without a decision (nothing runs). */
      outcome: 'decided' | 'cancelled';
      approved: boolean;
      always: boolean;
      feedback: string | null;
      decidedBy: string;
    }
  | { type: 'tool-output-chunk'; callId: string; chunk: string }
  | { type: 'tool-result'; callId: string; name: string; output: string; isError: boolean }
  | { type: 'plan-review'; approvalId: string; content: string }
  | { type: 'turn-end'; turnId: string; text: string; reason: TurnEndReason }
  | { type: 'error'; message: string }
  | { type: 'workstream-closed'; reason: string }
  /**
   * The turn queue drained: no turn runs and none is queued. Once per drain, after the drain's last `turn-end` (also
   * when a turn failed without one); a subscriber that only shows turns may let go here.
   */
  | { type: 'idle' };

export type AgentEventType = AgentEvent['type'];
