/** The public contract of workstreams, as the gateway and the terminal channel use them. */
import type { AgentEvent, MessageOrigin } from './events.js';
import type { InterruptedTurn } from './interrupted-turn.js';
import type { ContentPart } from './messages.js';
import type { InboundClaim } from '../storage/inbound-event-store.js';
import type { SteerOutcome } from './steer-inbox.js';

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
  /**
   * The message's inbound ledger row when the gateway has not written it yet (single instance): it is stored with the
   * message's *waiting* or *accepted* write, so a kill before that leaves no row and catch-up delivers it again.
   */
  receipt?: InboundClaim;
}

/** Receives a workstream's events strictly in order; a throw is logged and does not unsubscribe. */
/**
 * A handler that shows an event later (the renderer's turn end) returns `{ shown }`, resolving false when it could not
 * show it completely; the turn log waits for it, the event stream does not (see WorkstreamEventBus.deliver).
 */
export type AgentEventHandler = (event: AgentEvent) => void | Promise<void> | { shown: Promise<boolean> };

export interface Workstream {
  readonly wsId: string;
  readonly ownerUserId: string;
  /**
   * Queues a user message. It starts a turn at once when idle, otherwise runs after the turns ahead of it
   * (never interleaved, never dropped). The queue is bounded (`agent.max_queued_messages`): past the bound the
   * message is refused, and nothing of it is kept. Rejects only when the workstream is closed.
   */
  send(message: string | ContentPart[], options?: SendOptions): Promise<SendOutcome>;
  /**
   * True while a turn runs, is queued, or waits for an approval. It turns false before the `turn-end` of the last
   * queued turn is delivered, so a subscriber that sees `turn-end` and then `isBusy() === false` may let go (ADR 0007).
   */
  isBusy(): boolean;
  /**
   * Adds guidance to the running turn: it joins the history (marked `[steer]`) at the turn's next model call. With no
   * turn running it is sent as an ordinary message (`sent-as-message`). Absent where the turn runs elsewhere (another
   * instance holds it): the caller sends an ordinary message.
   */
  steer?(text: string, options?: SendOptions): Promise<SteerOutcome>;
  /** Subscribes to events from now on; returns the unsubscribe function. */
  subscribe(handler: AgentEventHandler): () => void;
  /** Cancels the running turn (it ends with `turn-end` reason `cancelled`) and drops nothing queued. */
  cancel(): void;
  /**
   * Switches the model (a configured alias) for the turns that start from now on; persisted at once. False, and nothing
   * changes, when the alias is not configured or the workstream is closed.
   */
  setModel(alias: string): Promise<boolean>;
  info(): Promise<WorkstreamInfo>;
}

/** The platform conversation a workstream answers in (a `channel_routes` row). */
export interface RouteTarget {
  channelType: string;
  channelId: string;
}

/** What `send` did with a message. */
export type SendOutcome =
  /** Accepted: `queued` is true when it waits behind a running or earlier turn. */
  | { status: 'accepted'; turnId: string; queued: boolean }
  /** Refused because `agent.max_queued_messages` messages already wait; nothing was kept. */
  | { status: 'refused'; reason: 'queue-full'; limit: number };

/** A finished approval as people see it (the row's state read by the agent's one rule, `approvalViewOf`). */
export type ApprovalVerdict =
  | { outcome: 'decided'; approved: boolean; always: boolean; feedback: string | null; decidedBy: string }
  | { outcome: 'cancelled'; feedback: string | null };

/** The definitive result of a click (ADR 0008): the gateway maps it to a reply and a card, nothing else. */
export type ResolveOutcome =
  /** The waiting turn took this decision and acts on it. `approval-resolved` (outcome `decided`) follows. */
  | { status: 'decided'; wsId: string; approved: boolean; always: boolean; feedback: string | null }
  /**
   * No turn took the decision: nothing runs. `stale` = no turn waits for this request even after restoring its
   * workstream (closed or deleted, a newer request replaced it; the row is ended by the system so it never resumes);
   * `turn-ended` = the turn stopped waiting while the decision was written (a cancel or close won the race).
   */
  | { status: 'cancelled'; wsId: string; reason: 'stale' | 'turn-ended' }
  /** The row was final before this click; `byYou` when the clicker made that decision. */
  | { status: 'already-decided'; verdict: ApprovalVerdict; byYou: boolean }
  | { status: 'not-found' }
  | { status: 'forbidden' };

/** Whether a person may decide an approval now (asked before a feedback form opens, so strangers see no form). */
export type DecisionCheck =
  { status: 'pending' } | Extract<ResolveOutcome, { status: 'already-decided' | 'not-found' | 'forbidden' }>;

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
  /**
   * Creates a workstream owned by a user: row first, then memory. With `route` (the platform thread it answers in),
   * the row and the thread's route are one transaction that commits while the first turn starts, off the path the
   * user waits on: the workstream's history writes, and so anything of its first answer, come after that commit; when
   * it fails, the turn fails with an error and the workstream is dropped (the thread's next message starts over).
   */
  create(input: { ownerUserId: string; name: string; modelAlias?: string; route?: RouteTarget }): Promise<Workstream>;
  /** The live workstream, restored from the database when evicted or after a restart; undefined when unknown or closed. */
  get(wsId: string): Promise<Workstream | undefined>;
  /**
   * Resolves an approval or plan review by id, idempotently, checking the decider is the owner or an admin.
   * Works after a restart: the workstream is restored and the stored calls run exactly once. `stale` when no turn
   * can take the decision (then nothing runs).
   */
  resolveApproval(approvalId: string, decision: ApprovalDecisionInput): Promise<ResolveOutcome>;
  /** The same checks as `resolveApproval` (exists, owner or admin, still pending) without deciding anything. */
  checkApproval(
    approvalId: string,
    decider: Pick<ApprovalDecisionInput, 'decidedBy' | 'isAdmin'>,
  ): Promise<DecisionCheck>;
  /** Closes a workstream: cancels its turn, cancels pending approvals, emits `workstream-closed`. */
  close(wsId: string, reason: string): Promise<boolean>;
  /**
   * The turns the previous process left unfinished (ADR 0013): each workstream is restored, with the streamed text in
   * its history and its unfinished tool calls answered as interrupted. Each turn stays open until `finishInterrupted`.
   * `only` limits it to some workstreams (those this instance may run, or one taken over from a dead instance).
   */
  interruptedTurns(only?: (wsId: string) => Promise<boolean>): Promise<InterruptedTurn[]>;
  /**
   * Resumes the interrupted turn once (`resume`, when it was not a resumption itself), or just closes it; then the
   * messages that were waiting behind it run (ADR 0030). With no interrupted turn only those run.
   */
  finishInterrupted(wsId: string, resume: boolean): Promise<'resumed' | 'noted'>;
  /** Workstreams with messages the previous process accepted and never started (`only` as for `interruptedTurns`). */
  waitingWorkstreams(only?: (wsId: string) => Promise<boolean>): Promise<string[]>;
  /** Evicts idle workstreams beyond the configured limits (history stays in the database). */
  evictIdle(): Promise<number>;
  /** Stops every workstream (shutdown): cancels turns and waits for them to settle. */
  shutdown(): Promise<void>;
  /** Counts for /health and /metrics. */
  stats(): { active: number; running: number };
}
