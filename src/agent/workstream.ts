/**
 * One live conversation: it accepts messages into its turn queue (`TurnQueue`), runs each job's turn, cancels, holds
 * its state and approval waiters, and delivers its events in order. Its conversation state (history, model,
 * auto-approve) is `ConversationState`; recovery after a restart and eviction are the manager's.
 */
import { GatewayError, describeError } from '../shared/errors.js';
import { RESUME_PROMPT } from '../shared/interruption.js';
import { newHexId } from '../shared/ids.js';
import type { ApprovalRow } from '../storage/approval-store.js';
import type { WorkstreamRow } from '../storage/workstream-store.js';
import { decodeApprovalItems, SYSTEM_DECIDER } from './approval-record.js';
import type { AgentEvent } from './events.js';
import { contentText, type ContentPart, type Message } from './messages.js';
import { runTurn } from './turn/run-turn.js';
import { isShutdown, leftForRestart, shutdownReason } from './turn/shutdown.js';
import type { StoredApprovalItems, TurnApprovalDecision } from './turn/turn-types.js';
import { logEntryOf, MAX_WATCH_CHAIN, turnStartOf, type Job, type WaitingMessage } from './workstream-jobs.js';
import type {
  AgentEventHandler,
  SendOptions,
  SendOutcome,
  Workstream,
  WorkstreamInfo,
  WorkstreamStatus,
} from './workstream-api.js';
import type { WorkstreamEnv } from './workstream-env.js';
import { WorkstreamEventBus } from './workstream-event-bus.js';
import { createTurnContext } from './workstream-host.js';
import { TurnQueue } from './turn-queue.js';
import { dropResumed, endWithoutModel, holdWatchResult } from './turn-endings.js';
import { ConversationState } from './conversation-state.js';
import { storesState } from './workstream-writes.js';
import { SteerInbox, steerContent, type SteerOutcome } from './steer-inbox.js';

export interface LiveWorkstreamInit {
  row: WorkstreamRow;
  history: Message[];
  cwd: string;
  /** Settles once the working directory exists (or could not be made); tools wait for it. */
  folder: Promise<void>;
  env: WorkstreamEnv;
  /** Settles when the row is committed (a new workstream's insert may still run while its first turn starts). */
  stored?: Promise<void>;
}

export class LiveWorkstream implements Workstream {
  readonly wsId: string;
  readonly ownerUserId: string;
  readonly cwd: string;
  /** Settles once the working directory was made (or its failure logged). */
  readonly folder: Promise<void>;
  readonly history: Message[];
  /** The row's commit; history writes are ordered after it (rejected when the row could not be stored). */
  readonly stored: Promise<void>;
  /** History, model, auto-approve set, files read, tool-search names and the system prompt. */
  readonly conversation: ConversationState;
  /** Steers the running turn has not read yet (src/agent/steer-inbox.ts). */
  readonly steers = new SteerInbox();
  lastActiveMs: number;
  private readonly env: WorkstreamEnv;
  private readonly bus: WorkstreamEventBus;
  private readonly queue: TurnQueue;
  /** The *ended* writes of turns whose end is still being shown. */
  private ending: Promise<void> = Promise.resolve();
  private controller: AbortController | undefined;
  private state: WorkstreamStatus;
  /** The state the row holds (or will once the write-behind ran): a turn's own `thinking`/`running` is not written. */
  private storedState: WorkstreamStatus;
  private closed = false;
  private evicted = false;
  /** Watch-triggered turns since the last message from a person (in memory: a restart starts a new chain). */
  private watchChain = 0;

  constructor(init: LiveWorkstreamInit) {
    this.env = init.env;
    this.wsId = init.row.wsId;
    this.ownerUserId = init.row.userId;
    this.state = init.row.state;
    this.storedState = init.row.state;
    this.history = init.history;
    this.stored = init.stored ?? Promise.resolve();
    this.cwd = init.cwd;
    this.folder = init.folder;
    this.bus = new WorkstreamEventBus(this.wsId, init.env.logger);
    this.conversation = new ConversationState(init.env, init.row, init.history, init.cwd);
    this.lastActiveMs = init.env.now();
    this.queue = new TurnQueue({
      run: (job) => this.runJob(job),
      failed: (error) => this.logError('running a turn', error),
      active: () => (this.lastActiveMs = this.env.now()),
      drained: () => this.emit({ type: 'idle' }),
    });
  }

  send(message: string | ContentPart[], options: SendOptions = {}): Promise<SendOutcome> {
    if (this.evicted && !this.closed) {
      // A caller still held this object when it was evicted: put it back (or hand over to the live one),
      // so one workstream never has two live objects running turns on the same history.
      const live = this.env.readopt(this);
      if (live !== this) return live.send(message, options);
    }
    // Closed, or stopped for shutdown (readopt stops an object taken back after the manager's shutdown).
    if (this.closed) return Promise.reject(new GatewayError('CONFLICT', 'workstream is closed'));
    // The one bound of the per-thread queue (ADR 0006): messages waiting behind the running turn.
    const limit = this.env.agent.max_queued_messages;
    if (this.queuedUserMessages() >= limit) return Promise.resolve({ status: 'refused', reason: 'queue-full', limit });
    const queued = this.isBusy();
    const turnId = newHexId();
    const origin = options.origin ?? 'user';
    // A message that waits is stored until its turn begins: a restart or a takeover still answers it (ADR 0030).
    const { receipt } = options;
    if (queued) void this.env.journal.queue(this.wsId, turnId, JSON.stringify(message), origin, receipt);
    // The receipt goes with the *accepted* write as well when the message waited: a waiting row that could not be
    // stored (logged) must not leave a message answered here without its ledger row (catch-up would answer it again).
    this.queue.push({
      kind: 'user',
      turnId,
      content: message,
      origin,
      ...(queued ? { waited: true } : {}),
      ...(receipt ? { receipt } : {}),
    });
    return Promise.resolve({ status: 'accepted', turnId, queued });
  }

  /**
   * Guidance for the running turn, read at its next model call; stored as a waiting message first (a crash before that
   * call runs it after the restart). With no turn running it is an ordinary message.
   */
  async steer(text: string, options: SendOptions = {}): Promise<SteerOutcome> {
    if (this.controller === undefined || this.closed || this.evicted) {
      const sent = await this.send(text, options);
      return sent.status === 'accepted' ? { status: 'sent-as-message', queued: sent.queued } : sent;
    }
    const limit = this.env.agent.max_queued_messages;
    if (this.steers.size >= limit) return { status: 'refused', reason: 'queue-full', limit };
    const id = newHexId();
    const content = steerContent(text);
    await this.env.journal.queue(this.wsId, id, JSON.stringify(content), 'user', options.receipt);
    // The turn ended while the steer was stored: it waits as the next message instead.
    if (this.controller === undefined)
      this.queue.push({ kind: 'user', turnId: id, content, origin: 'user', waited: true });
    else this.steers.add({ id, content });
    return { status: 'steered' };
  }

  /** A turn runs, is queued, or waits for a decision (ADR 0007). */
  isBusy(): boolean {
    return this.controller !== undefined || this.queue.size > 0 || this.env.waiters.countFor(this.wsId) > 0;
  }

  private queuedUserMessages(): number {
    return this.queue.waitingMessages;
  }

  subscribe(handler: AgentEventHandler): () => void {
    return this.bus.subscribe(handler);
  }

  cancel(): void {
    this.controller?.abort();
  }

  /** Stops the running turn for shutdown: durable state (pending approvals, stored history) is left as is. */
  stopForShutdown(): void {
    this.closed = true;
    this.queue.clear(true);
    this.controller?.abort(shutdownReason());
  }

  async info(): Promise<WorkstreamInfo> {
    // Token counters are written behind; what is shown includes every turn that ended.
    await this.env.writes.flush();
    const row = await this.env.stores.workstreams.get(this.wsId);
    return {
      wsId: this.wsId,
      ownerUserId: this.ownerUserId,
      name: row?.name ?? '',
      modelAlias: this.conversation.modelAlias,
      state: this.closed ? 'closed' : this.reportedState(),
      inputTokens: row?.inputTokens ?? 0,
      outputTokens: row?.outputTokens ?? 0,
      pendingApprovals: this.env.waiters.countFor(this.wsId),
      queuedMessages: this.queuedUserMessages(),
    };
  }

  /** A turn that started but has not set its state yet still counts as busy (the stored state lags behind). */
  private reportedState(): WorkstreamStatus {
    const busy = this.state === 'thinking' || this.state === 'running' || this.state === 'attention';
    return this.controller !== undefined && !busy ? 'thinking' : this.state;
  }

  emit(event: AgentEvent): void {
    this.bus.emit(event);
  }

  /** Called by the manager when it drops this object from its live set (idle eviction) or takes it back. */
  setEvicted(evicted: boolean): void {
    this.evicted = evicted;
  }

  /** A pending approval ended without a decision (turn cancelled, workstream closed): cards stop offering buttons. */
  emitApprovalCancelled(approvalId: string): void {
    this.emit({
      type: 'approval-resolved',
      approvalId,
      outcome: 'cancelled',
      approved: false,
      always: false,
      feedback: 'Cancelled',
      decidedBy: SYSTEM_DECIDER,
    });
  }

  /** Resolves when the queue is empty and every event was delivered. */
  async settle(): Promise<void> {
    await this.queue.settled();
    await this.bus.flush();
    await this.ending;
  }

  /** Changes the state at once in memory; the row follows through the write-behind (never on the waiting path). */
  setState(state: WorkstreamStatus): Promise<void> {
    if (this.state !== state) {
      this.state = state;
      if (storesState(this.storedState, state)) {
        this.storedState = state;
        this.env.writes.setState(this.wsId, state);
      }
    }
    return Promise.resolve();
  }

  /**
   * Switches the model for the turns that start from now on (a running turn keeps its model); written at once, so
   * the choice survives eviction and restarts. False (nothing changes) when the alias is not configured.
   */
  setModel(alias: string): Promise<boolean> {
    return this.closed ? Promise.resolve(false) : this.conversation.setModel(alias);
  }

  addAutoApprove(labels: readonly string[]): Promise<void> {
    return this.conversation.addAutoApprove(labels);
  }

  /** Registers for a decision; the resolved-event goes out when it arrives (after a restart, preceded by turn-start). */
  waitForDecision(approvalId: string, resumedTurnId: string | undefined): Promise<TurnApprovalDecision> {
    return this.env.waiters.register(approvalId, this.wsId).then(async (decision) => {
      if (resumedTurnId !== undefined) {
        // The decision arrives after the click's handler bound the thread (ApprovalDesk: renderWhile).
        const lastUser = this.history.findLast((message) => message.role === 'user');
        this.emit({
          type: 'turn-start',
          turnId: resumedTurnId,
          userMessage: lastUser ? contentText(lastUser.content) : '',
        });
      }
      const { approved, always, feedback, decidedBy } = decision;
      this.emit({ type: 'approval-resolved', approvalId, outcome: 'decided', approved, always, feedback, decidedBy });
      return decision;
    });
  }

  /** After a restart: a pending approval row becomes the first job; nothing runs before the click. */
  resumePendingApproval(row: ApprovalRow): boolean {
    const decoded = decodeApprovalItems(row.items);
    if (!decoded.ok) return false;
    const stored: StoredApprovalItems = decoded.value;
    const decision = this.waitForDecision(row.approvalId, row.turnId);
    // The job awaits the decision. When the job never gets to it (no model, closed first), close() rejects
    // the waiter and nobody else listens: that rejection is expected and must not become an unhandled one.
    void decision.catch(() => undefined);
    this.queue.pushFirst({ kind: 'resume', turnId: row.turnId, approvalId: row.approvalId, stored, decision });
    return true;
  }

  /**
   * Cancels the turn, drops queued messages and waiters (each pending approval ends with an `approval-resolved`
   * by SYSTEM_DECIDER), waits for the queue to stop, emits `workstream-closed`.
   */
  async close(reason: string): Promise<void> {
    this.closed = true;
    this.queue.clear(true);
    this.cancel();
    // The waiters go first, so the turn's own cancel path finds none and does not report them a second time.
    for (const approvalId of this.env.waiters.cancelWorkstream(this.wsId)) this.emitApprovalCancelled(approvalId);
    await this.settle();
    this.state = 'closed';
    this.emit({ type: 'workstream-closed', reason });
    await this.bus.flush();
  }

  private async runJob(job: Job): Promise<void> {
    if (job.kind === 'user' && job.origin === 'watch' && this.watchChain >= MAX_WATCH_CHAIN)
      return holdWatchResult(this, this.env, job, this.watchChain);
    if (job.kind === 'user') this.watchChain = job.origin === 'watch' ? this.watchChain + 1 : 0;
    const controller = new AbortController();
    this.controller = controller;
    if (job.kind === 'user') this.emitTurnStart(job);
    const model = this.conversation.model();
    if (model === undefined) {
      this.controller = undefined;
      return endWithoutModel(this, this.env, job);
    }
    const start = turnStartOf(job);
    // The turn's *accepted* commit point (its message and its log entry in one write) is the turn's first step.
    const context = createTurnContext(this, this.env, {
      turnId: job.turnId,
      model,
      signal: controller.signal,
      log: logEntryOf(job),
    });
    const outcome = await runTurn(context, start);
    this.controller = undefined;
    // Steers the turn never read (it answered, stopped or failed first) wait as the next messages (already stored).
    for (const steer of this.steers.take())
      this.queue.push({ kind: 'user', turnId: steer.id, content: steer.content, origin: 'user', waited: true });
    if (job.kind === 'resume' && outcome.reason === 'cancelled' && !isShutdown(controller.signal))
      await dropResumed(this, this.env, job.approvalId);
    await this.setState(outcome.reason === 'error' ? 'error' : 'idle');
    const shown = this.bus.deliver({
      type: 'turn-end',
      turnId: job.turnId,
      text: outcome.text,
      reason: outcome.reason,
    });
    // Every durable write of the turn settled (the answer was committed before its final edit), and the thread shows
    // the turn's end (its final edit landed, or was given up): then the log entry goes (*ended*), behind the queue's
    // next turn, whose *accepted* write replaces the row anyway. A kill before it leaves the row, and the restart shows
    // the committed answer. At shutdown it stays unless the answer was committed (`leftForRestart`).
    await context.host.settled();
    if (leftForRestart(controller.signal, outcome)) return;
    const end = (): Promise<void> => this.env.journal.end(this.wsId, job.turnId);
    this.ending = Promise.all([this.ending, shown.then(end, end)]).then(() => undefined);
  }

  /** Set by the restore: messages the previous process accepted and never started, in order. */
  setWaiting(messages: WaitingMessage[]): void {
    this.queue.setWaiting(messages);
  }

  /** Queues the messages the previous process left waiting (once), behind whatever is queued now. */
  runWaiting(): void {
    this.queue.runWaiting();
  }

  /** Recovery resumes the turn a restart interrupted (once): ahead of the waiting messages, which follow it. */
  resumeInterrupted(): void {
    this.queue.pushFirst({ kind: 'user', turnId: newHexId(), content: RESUME_PROMPT, origin: 'user', resumed: true });
    this.runWaiting();
  }

  get isClosed(): boolean {
    return this.closed;
  }

  private emitTurnStart(job: Extract<Job, { kind: 'user' }>): void {
    const start: AgentEvent = { type: 'turn-start', turnId: job.turnId, userMessage: contentText(job.content) };
    this.emit(job.origin === 'watch' ? { ...start, origin: 'watch' } : start);
  }

  private logError(what: string, error: unknown): void {
    this.env.logger.error({ wsId: this.wsId, err: describeError(error) }, `${what} failed`);
  }
}
