/** The public contract of workstreams, as the gateway and the terminal channel use them. */
import type { AgentEvent, MessageOrigin } from './events.js';
import type { ContentPart } from './messages.js';

export type WorkstreamStatus = 'idle' | 'thinking' | 'running' | 'attention' | 'error' | 'closed';

export interface WorkstreamInfo {
  wsId: string;
  ownerUserId: string;
  name: string;
  modelAlias: string;
  state: WorkstreamStatus;
  inputTokens: number;
  outputTokens: number;
  /** Number of approvals waiting for a decision. */
  pendingApprovals: number;
  /** Messages queued behind the running turn. */
  queuedMessages: number;
}

export interface SendOptions {
  /**
   * `watch`: a watch result. It starts a turn like a user message, but at most MAX_WATCH_CHAIN such turns run in a row
   * without a message from a person; beyond that the result is stored in the history and read with the next message.
   */
  origin?: MessageOrigin;
}

/** Receives a workstream's events strictly in order; a throw is logged and does not unsubscribe. */
export type AgentEventHandler = (event: AgentEvent) => void | Promise<void>;

export interface Workstream {
  readonly wsId: string;
  readonly ownerUserId: string;
  /**
   * Queues a user message. It starts a turn at once when idle, otherwise runs after the turns ahead of it
   * (never interleaved, never dropped). Resolves with the turn id when the message is accepted.
   */
  send(message: string | ContentPart[], options?: SendOptions): Promise<string>;
  /** Subscribes to events from now on; returns the unsubscribe function. */
  subscribe(handler: AgentEventHandler): () => void;
  /** Cancels the running turn (it ends with `turn-end` reason `cancelled`) and drops nothing queued. */
  cancel(): void;
  info(): Promise<WorkstreamInfo>;
}

export type ResolveOutcome =
  /** The decision reached the waiting turn, which acts on it. */
  | { status: 'resolved'; wsId: string }
  /**
   * No turn waits for this request any more, even after restoring its workstream (it was closed or deleted, a newer
   * request replaced it, or the turn stopped while the decision was written): nothing runs. A row still pending is
   * ended by the system (`decidedBy` 'system'), so it never resumes later.
   */
  | { status: 'stale'; wsId: string }
  | { status: 'already-decided'; approved: boolean; decidedBy: string | null }
  | { status: 'not-found' }
  | { status: 'forbidden' };

export interface ApprovalDecisionInput {
  approved: boolean;
  always?: boolean;
  feedback?: string | null;
  /** Our user id of the person who clicked. */
  decidedBy: string;
  /** Admins may decide for any workstream. */
  isAdmin?: boolean;
}

export interface WorkstreamManager {
  /** Creates a workstream (row first, then memory) owned by a user. */
  create(input: { ownerUserId: string; name: string; modelAlias?: string }): Promise<Workstream>;
  /** The live workstream, restored from the database when evicted or after a restart; undefined when unknown or closed. */
  get(wsId: string): Promise<Workstream | undefined>;
  /**
   * Resolves an approval or plan review by id, idempotently, checking the decider is the owner or an admin.
   * Works after a restart: the workstream is restored and the stored calls run exactly once. `stale` when no turn
   * can take the decision (then nothing runs).
   */
  resolveApproval(approvalId: string, decision: ApprovalDecisionInput): Promise<ResolveOutcome>;
  /** Closes a workstream: cancels its turn, cancels pending approvals, emits `workstream-closed`. */
  close(wsId: string, reason: string): Promise<boolean>;
  /** Evicts idle workstreams beyond the configured limits (history stays in the database). */
  evictIdle(): Promise<number>;
  /** Stops every workstream (shutdown): cancels turns and waits for them to settle. */
  shutdown(): Promise<void>;
  /** Counts for /health and /metrics. */
  stats(): { active: number; running: number };
}
