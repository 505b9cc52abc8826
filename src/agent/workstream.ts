/** One live conversation: history, a queue of turns run one at a time, cancellation, and an ordered event stream. */
import { markHotPath } from '../shared/hot-path-marks.js';
import { GatewayError, describeError } from '../shared/errors.js';
import { RESUME_PROMPT } from '../shared/interruption.js';
import { newHexId } from '../shared/ids.js';
import type { ApprovalRow } from '../storage/approval-store.js';
import type { WorkstreamRow } from '../storage/workstream-store.js';
import { isAbandonedCreation } from './abandoned-creation.js';
import { decodeApprovalItems, SYSTEM_DECIDER } from './approval-record.js';
import type { AgentEvent } from './events.js';
import type { InterruptedTurn } from './interrupted-turn.js';
import { contentText, type ContentPart, type Message } from './messages.js';
import { WorkstreamToolSearch } from './search/workstream-tool-search.js';
import { buildSystemPrompt, collectSections, recentUserMessages } from './system-prompt.js';
import { listAllTools } from './turn/build-request.js';
import { createSubAgentPort } from './subagents/sub-agent-port.js';
import { runTurn } from './turn/run-turn.js';
import { isShutdown, leftForRestart, shutdownReason } from './turn/shutdown.js';
import type { StoredApprovalItems, TurnApprovalDecision, TurnContext, TurnModel } from './turn/turn-types.js';
import { logEntryOf, MAX_WATCH_CHAIN, turnStartOf, WATCH_HELD_NOTE, type Job, type WaitingMessage } from './workstream-jobs.js';
import type { AgentEventHandler, SendOptions, SendOutcome, Workstream, WorkstreamInfo, WorkstreamStatus } from './workstream-api.js';
import type { WorkstreamEnv } from './workstream-env.js';
import { WorkstreamEventBus } from './workstream-event-bus.js';
import { createTurnHost, type TurnLogEntry } from './workstream-host.js';

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
  readonly readFiles = new Set<string>();
  /** Expanded tool-search names live in memory; after eviction or restart they are rebuilt from the history. */
  readonly toolSearch: WorkstreamToolSearch;
  lastActiveMs: number;
  private readonly env: WorkstreamEnv;
  private modelAlias: string;
  private readonly autoApprove: Set<string>;
  private readonly bus: WorkstreamEventBus;
  private readonly jobs: Job[] = [];
  private drain: Promise<void> | undefined;
  private controller: AbortController | undefined;
  private state: WorkstreamStatus;
  private closed = false;
  private evicted = false;
  /** Watch-triggered turns since the last message from a person (in memory: a restart starts a new chain). */
  private watchChain = 0;
  /** Messages the previous process had accepted but not started (ADR 0030); they run once the restart settled. */
  private waiting: WaitingMessage[] = [];
  /** The turn the previous process left unfinished, until the gateway settles it (ADR 0013). */
  private interrupted: InterruptedTurn | undefined;

  constructor(init: LiveWorkstreamInit) {
    this.env = init.env;
    this.wsId = init.row.wsId;
    this.ownerUserId = init.row.userId;
    this.modelAlias = init.row.modelAlias;
    this.autoApprove = new Set(init.row.autoApproveTools);
    this.state = init.row.state;
    this.history = init.history;
    this.stored = init.stored ?? Promise.resolve();
    this.cwd = init.cwd;
    this.folder = init.folder;
    this.bus = new WorkstreamEventBus(this.wsId, init.env.logger);
    const { toolSources, logger } = init.env;
    this.toolSearch = new WorkstreamToolSearch(init.env.toolSearch, (signal) => listAllTools({ toolSources, logger, signal }));
    this.toolSearch.restoreFrom(init.history);
    this.lastActiveMs = init.env.now();
  }

  send(message: string | ContentPart[], options: SendOptions = {}): Promise<SendOutcome> {
    markHotPath('handed-over');
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
    if (queued) void this.env.journal.queue(this.wsId, turnId, JSON.stringify(message), origin);
    this.jobs.push(queued ? { kind: 'user', turnId, content: message, origin, waited: true } : { kind: 'user', turnId, content: message, origin });
    this.kick();
    return Promise.resolve({ status: 'accepted', turnId, queued });
  }

  /** A turn runs, is queued, or waits for a decision (ADR 0007). */
  isBusy(): boolean {
    return this.controller !== undefined || this.jobs.length > 0 || this.env.waiters.countFor(this.wsId) > 0;
  }

  private queuedUserMessages(): number {
    return this.jobs.filter((job) => job.kind === 'user').length;
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
    this.jobs.length = 0;
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
      modelAlias: this.modelAlias,
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
    this.emit({ type: 'approval-resolved', approvalId, outcome: 'cancelled', approved: false, always: false, feedback: 'Cancelled', decidedBy: SYSTEM_DECIDER });
  }

  /** Resolves when the queue is empty and every event was delivered. */
  async settle(): Promise<void> {
    while (this.drain !== undefined) await this.drain;
    await this.bus.flush();
  }

  /** Changes the state at once in memory; the row follows through the write-behind (never on the waiting path). */
  setState(state: WorkstreamStatus): Promise<void> {
    if (this.state !== state) {
      this.state = state;
      this.env.writes.setState(this.wsId, state);
    }
    return Promise.resolve();
  }

  /**
   * Switches the model for the turns that start from now on (a running turn keeps its model); written at once, so
   * the choice survives eviction and restarts. False (nothing changes) when the alias is not configured.
   */
  async setModel(alias: string): Promise<boolean> {
    if (this.closed || this.env.resolveModel(alias) === undefined) return false;
    await this.env.stores.workstreams.update(this.wsId, { modelAlias: alias });
    this.modelAlias = alias;
    return true;
  }

  async addAutoApprove(labels: readonly string[]): Promise<void> {
    for (const label of labels) this.autoApprove.add(label);
    await this.env.stores.workstreams
      .update(this.wsId, { autoApproveTools: [...this.autoApprove] })
      .catch((error: unknown) => this.logError('saving the auto-approve set', error));
  }

  /** Registers for a decision; the resolved-event goes out when it arrives (after a restart, preceded by turn-start). */
  waitForDecision(approvalId: string, resumedTurnId: string | undefined): Promise<TurnApprovalDecision> {
    return this.env.waiters.register(approvalId, this.wsId).then(async (decision) => {
      if (resumedTurnId !== undefined) {
        // Let a subscriber that attaches right after manager.get() see the whole resumed turn.
        await new Promise<void>((resolve) => setImmediate(resolve));
        const lastUser = this.history.findLast((message) => message.role === 'user');
        this.emit({ type: 'turn-start', turnId: resumedTurnId, userMessage: lastUser ? contentText(lastUser.content) : '' });
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
    this.jobs.unshift({ kind: 'resume', turnId: row.turnId, approvalId: row.approvalId, stored, decision });
    this.kick();
    return true;
  }

  /**
   * Cancels the turn, drops queued messages and waiters (each pending approval ends with an `approval-resolved`
   * by SYSTEM_DECIDER), waits for the queue to stop, emits `workstream-closed`.
   */
  async close(reason: string): Promise<void> {
    this.closed = true;
    this.jobs.length = 0;
    this.cancel();
    // The waiters go first, so the turn's own cancel path finds none and does not report them a second time.
    for (const approvalId of this.env.waiters.cancelWorkstream(this.wsId)) this.emitApprovalCancelled(approvalId);
    await this.settle();
    this.state = 'closed';
    this.emit({ type: 'workstream-closed', reason });
    await this.bus.flush();
  }

  private kick(): void {
    // With nothing queued runQueue would finish before `drain` is assigned, and `drain` would never clear again.
    if (this.drain !== undefined || this.closed || this.jobs.length === 0) return;
    this.drain = this.runQueue();
  }

  private async runQueue(): Promise<void> {
    try {
      for (let job = this.jobs.shift(); job !== undefined; job = this.closed ? undefined : this.jobs.shift()) {
        this.lastActiveMs = this.env.now();
        // A workstream whose thread was never opened ends its turn quietly: the gateway reported that failure.
        await this.runJob(job).catch((error: unknown) => isAbandonedCreation(error) || this.logError('running a turn', error));
        this.lastActiveMs = this.env.now();
      }
    } finally {
      this.drain = undefined;
    }
  }

  private async runJob(job: Job): Promise<void> {
    if (job.kind === 'user' && job.origin === 'watch' && this.watchChain >= MAX_WATCH_CHAIN) return this.holdWatchResult(job);
    if (job.kind === 'user') this.watchChain = job.origin === 'watch' ? this.watchChain + 1 : 0;
    const controller = new AbortController();
    this.controller = controller;
    if (job.kind === 'user') this.emitTurnStart(job);
    const model = this.env.resolveModel(this.modelAlias) ?? this.env.resolveModel(this.env.defaultModelAlias);
    if (model === undefined) return this.endWithoutModel(job);
    const start = turnStartOf(job);
    // The turn's *accepted* commit point (its message and its log entry in one write) is the turn's first step.
    const context = this.turnContext(job.turnId, model, controller.signal, logEntryOf(job));
    const outcome = await runTurn(context, start);
    this.controller = undefined;
    if (job.kind === 'resume' && outcome.reason === 'cancelled' && !isShutdown(controller.signal)) await this.dropResumed(job.approvalId);
    await this.setState(outcome.reason === 'error' ? 'error' : 'idle');
    this.emit({ type: 'turn-end', turnId: job.turnId, text: outcome.text, reason: outcome.reason });
    // Every durable write of the turn settled (the answer was committed before its final edit); then the log entry goes.
    // At shutdown it stays unless the answer was committed (`leftForRestart`); the next start settles it.
    await context.host.settled();
    if (!leftForRestart(controller.signal, outcome)) await this.env.journal.end(job.turnId);
  }

  /** Set by the restore: messages the previous process accepted and never started, in order. */
  setWaiting(messages: WaitingMessage[]): void {
    this.waiting = messages;
  }

  /** Queues the messages the previous process left waiting (once), behind whatever is queued now. */
  runWaiting(): void {
    const known = new Set(this.jobs.map((job) => job.turnId));
    for (const message of this.waiting.splice(0)) if (!known.has(message.turnId)) this.jobs.push({ kind: 'user', ...message, waited: true });
    this.kick();
  }

  /** Set by the restore when the previous process left a turn of this workstream unfinished. */
  setInterrupted(turn: InterruptedTurn): void {
    this.interrupted = turn;
  }

  interruptedTurn(): InterruptedTurn | undefined {
    return this.interrupted;
  }

  /**
   * Ends the settlement of the interrupted turn: with `resume` (and when it was not itself a resumption and no newer
   * turn runs) the question is answered by a resumed turn; otherwise its journal row is removed. Then the messages that
   * were waiting behind it run (also when no turn was interrupted). Returns what happened.
   */
  async finishInterrupted(resume: boolean): Promise<'resumed' | 'noted'> {
    const turn = this.interrupted;
    this.interrupted = undefined;
    if (turn !== undefined && turn.answer === undefined && resume && !turn.wasResumed && !this.isBusy() && !this.closed) {
      // The job's journal row replaces the interrupted turn's row when it is written (begin supersedes it).
      this.jobs.unshift({ kind: 'user', turnId: newHexId(), content: RESUME_PROMPT, origin: 'user', resumed: true });
      this.runWaiting();
      return 'resumed';
    }
    if (turn !== undefined) await this.env.stores.turnJournal.remove(turn.turnId).catch((error: unknown) => this.logError('removing a settled turn', error));
    this.runWaiting();
    return 'noted';
  }

  private async endWithoutModel(job: Job): Promise<void> {
    // A restored approval can never run without a model: end it rather than leave a click nobody acts on.
    if (job.kind === 'resume') await this.dropResumed(job.approvalId);
    this.controller = undefined;
    this.emit({ type: 'error', message: 'No model is configured for this workstream.' });
    this.emit({ type: 'turn-end', turnId: job.turnId, text: '', reason: 'error' });
    // Nothing was accepted: a waiting message's row goes (it has been answered with the error above).
    await this.env.stores.turnJournal
      .apply([{ kind: 'begin', turnId: job.turnId, wsId: this.wsId, resumed: false, waited: true }, { kind: 'end', turnId: job.turnId }])
      .catch((error: unknown) => this.logError('removing a waiting message', error));
  }

  private emitTurnStart(job: Extract<Job, { kind: 'user' }>): void {
    const start: AgentEvent = { type: 'turn-start', turnId: job.turnId, userMessage: contentText(job.content) };
    this.emit(job.origin === 'watch' ? { ...start, origin: 'watch' } : start);
  }

  /** Beyond the chain limit a watch result starts no model call: it is stored, and the thread says so. */
  private async holdWatchResult(job: Extract<Job, { kind: 'user' }>): Promise<void> {
    const message = { role: 'user' as const, content: job.content };
    this.history.push(message);
    await this.env.stores.conversations.append(this.wsId, message).catch((error: unknown) => this.logError('persisting a held watch result', error));
    this.env.logger.warn({ wsId: this.wsId, chain: this.watchChain }, 'watch chain limit reached; result held for the next message');
    this.emit({ type: 'turn-start', turnId: job.turnId, userMessage: contentText(job.content), origin: 'watch' });
    this.emit({ type: 'turn-end', turnId: job.turnId, text: WATCH_HELD_NOTE, reason: 'done' });
  }

  private async dropResumed(approvalId: string): Promise<void> {
    const waited = this.env.waiters.has(approvalId);
    this.env.waiters.drop(approvalId);
    await this.env.stores.approvals.cancelPending(this.wsId).catch((error: unknown) => this.logError('cancelling an approval', error));
    if (waited) this.emitApprovalCancelled(approvalId);
  }

  private turnContext(turnId: string, model: TurnModel, signal: AbortSignal, log: TurnLogEntry): TurnContext {
    const env = this.env;
    return {
      wsId: this.wsId,
      turnId,
      cwd: this.cwd,
      folderReady: this.folder,
      history: this.history,
      model,
      toolSources: env.toolSources,
      toolSearch: this.toolSearch,
      streamModel: env.streamModel,
      systemPrompt: (promptSignal) => this.systemPrompt(promptSignal),
      autoApproveAll: env.agent.auto_approve,
      autoApproveLabels: () => [...env.agent.auto_approve_tools, ...this.autoApprove],
      maxSteps: env.agent.max_steps,
      toolTimeoutMs: env.agent.tool_timeout_seconds * 1000,
      readFiles: this.readFiles,
      logger: env.logger,
      host: createTurnHost(this, env, turnId, log),
      signal,
      subAgents: (parent, callId) => createSubAgentPort(parent, callId, { maxSteps: env.agent.sub_agent_max_steps }),
    };
  }

  private async systemPrompt(signal: AbortSignal): Promise<string> {
    const recentUserTexts = recentUserMessages(this.history, 3);
    const context = { wsId: this.wsId, ownerUserId: this.ownerUserId, cwd: this.cwd, lastUserText: recentUserTexts[0] ?? '', recentUserTexts, history: this.history, signal };
    const sections = await collectSections(this.env.systemPromptSections, context, (error) => this.logError('a system prompt section', error));
    return buildSystemPrompt({ now: new Date(this.env.now()), cwd: this.cwd, instructions: this.env.agent.instructions, sections });
  }

  private logError(what: string, error: unknown): void {
    this.env.logger.error({ wsId: this.wsId, err: describeError(error) }, `${what} failed`);
  }
}
