/** Agent events → throttled posts and edits through the channel port, the same for every platform. */
import { setMaxListeners } from 'node:events';
import type { AgentEvent } from '../agent/events.js';
import type { ChannelAdapter } from '../channels/channel-adapter.js';
import { describeError } from '../shared/errors.js';
import { SerialLane } from '../shared/serial-lane.js';
import { sleep } from '../shared/time.js';
import type { Logger } from '../shared/logger.js';
import { LiveStateRecorder } from './live-state.js';
import { SessionStatusLane } from './session-status-lane.js';
import { AnswerText, DEFAULT_EDIT_INTERVAL_MS } from './answer-text.js';
import { ToolLines } from './tool-lines.js';
import { TypingIndicator } from './typing-indicator.js';

export { DEFAULT_EDIT_INTERVAL_MS } from './answer-text.js';
/** Shown when a turn ends without any visible output (the model answered nothing). */
export const EMPTY_ANSWER_NOTE = '*No answer.*';

/** What the renderer hands back to the gateway (approval cards, turn bookkeeping). */
export interface RendererHooks {
  onApprovalCard(event: Extract<AgentEvent, { type: 'approval-request' | 'plan-review' }>): Promise<void>;
  onApprovalResolved(event: Extract<AgentEvent, { type: 'approval-resolved' }>): Promise<void>;
  /** The turn was cancelled: approvals granted in it whose calls did not all produce a result never ran. */
  onTurnCancelled(approved: { approvalIds: readonly string[]; ranCallIds: ReadonlySet<string> }): Promise<void>;
  onClosed(): void;
  /** Records what the thread shows of the turn in flight (JSON), or clears it (null), for a restart (ADR 0013). */
  onLiveState?(state: string | null): Promise<void>;
}

export interface StreamRendererOptions {
  adapter: ChannelAdapter;
  channelId: string;
  logger: Logger;
  /** Bindings of the renderer's child logger, made the first time something is logged (most renderers log nothing). */
  logBindings?: Record<string, string>;
  hooks: RendererHooks;
  /** Base cadence of live edits (default 1.5 s); rate limiting only ever stretches it. */
  editIntervalMs?: number;
  typingIntervalMs?: number;
}

/** Renders one workstream's events into one thread. Events are processed strictly in order on a private chain. */
export class StreamRenderer {
  private readonly lane = new SerialLane();
  /** Session statuses (`sessionStatus`), in order, apart from the rendering lane. */
  private readonly sessions: SessionStatusLane;
  private readonly answer: AnswerText;
  private readonly tools: ToolLines;
  private readonly typing: TypingIndicator;
  /** Posts other than the answer text this turn. */
  private postedOther = false;
  /** The turn being rendered. */
  private turnId: string | undefined;
  /** The last segment this turn ended was shown in full (false: its final edit kept failing or was cut off). */
  private answerShown = true;
  /** Approvals granted during the current turn, and the calls that produced a result. */
  private readonly approvedThisTurn = new Set<string>();
  private readonly ranThisTurn = new Set<string>();
  private readonly controller = new AbortController();
  /** Aborted when a graceful stop begins: ends waits between retries, never a platform call. */
  private readonly quiet = new AbortController();
  private closed = false;
  private readonly live: LiveStateRecorder | undefined;
  #logger: Logger | undefined;

  constructor(private readonly options: StreamRendererOptions) {
    const save = options.hooks.onLiveState;
    this.live = save === undefined ? undefined : new LiveStateRecorder((state) => save(state), () => this.logger);
    setMaxListeners(0, this.controller.signal);
    this.sessions = new SessionStatusLane(options.adapter, options.channelId, this.controller.signal, () => this.logger);
    const { adapter, channelId } = options;
    this.tools = new ToolLines({ adapter, channelId, signal: this.controller.signal, logger: () => this.logger, live: this.live });
    this.typing = new TypingIndicator(adapter, channelId, this.controller.signal, options.typingIntervalMs);
    this.answer = new AnswerText({
      adapter, channelId, logger: () => this.logger, signal: this.controller.signal, quiet: this.quiet.signal, live: this.live,
      intervalMs: options.editIntervalMs ?? DEFAULT_EDIT_INTERVAL_MS, enqueue: (step) => void this.enqueue(step), closed: () => this.closed,
    });
  }

  private get logger(): Logger {
    const { logger, logBindings } = this.options;
    return (this.#logger ??= logBindings === undefined ? logger : logger.child(logBindings));
  }

  /** Live edits made, for benchmarks and /metrics. */
  get edits(): number {
    return this.answer.edits;
  }

  /** Accepts an event without blocking the agent; rendering happens on the renderer's own chain. */
  /**
   * Renders the event after the ones handed in before it. Resolves true once a `turn-end` is shown in full (the
   * answer's final edit landed), false when it could not be (the renderer was closed, a final edit kept failing).
   */
  handle(event: AgentEvent): Promise<boolean> {
    return this.enqueue(() => this.process(event)).then((shown) => shown === true);
  }

  /** The platform signalled rate limiting: stretch the cadence (never shorten it). */
  slowDown(retryAfterMs: number): void {
    this.answer.slowDown(retryAfterMs);
  }

  get currentIntervalMs(): number {
    return this.answer.intervalMs;
  }

  /** Resolves once every event handed in so far has been rendered. */
  async idle(): Promise<void> {
    await this.lane.idle();
    await this.sessions.idle();
  }

  /** Resolves once every event handed in so far has been rendered and what the thread shows has been recorded. */
  async settled(): Promise<void> {
    await this.idle();
    await this.live?.idle();
  }

  /** Events handed in are still being rendered (or wait to be). */
  get busy(): boolean {
    return this.lane.size > 0 || this.sessions.size > 0;
  }

  dispose(): void {
    this.closed = true;
    this.clearTimers();
    this.quiet.abort();
    this.controller.abort();
  }

  /**
   * Graceful stop: nothing more is rendered, but the post or edit in flight completes and what the thread shows is
   * recorded (`live_state`), so the next start can edit the live message (ADR 0013); bounded by `graceMs`, then disposed.
   */
  async drain(graceMs: number): Promise<void> {
    this.closed = true;
    this.clearTimers();
    // A retry wait of the final edit ends now (the loop stops once closed); an in-flight platform call does not.
    this.quiet.abort();
    const grace = new AbortController();
    await Promise.race([this.settled(), sleep(graceMs, grace.signal).catch(() => undefined)]);
    grace.abort();
    this.dispose();
  }

  private enqueue(step: () => Promise<boolean | void>): Promise<boolean | void> {
    return this.lane.run(step).catch((error: unknown) => {
      this.logger.error({ error: describeError(error) }, 'rendering failed');
      return false;
    });
  }

  private async process(event: AgentEvent): Promise<boolean | void> {
    if (this.closed) return false;
    switch (event.type) {
      case 'turn-start':
        return this.startTurn(event);
      case 'text-delta':
        this.appendText(event.text);
        return;
      case 'model-call-end':
        // The call's text is complete: the final edit goes out now, not after the turn has wound down. Whatever follows
        // (tool calls, an error, the turn's end) starts in a new segment anyway.
        await this.finishSegment(event.answered === true);
        return;
      case 'tool-calls':
        await this.showToolCalls(event.items);
        return;
      case 'tool-result':
        await this.showToolResult(event);
        return;
      case 'approval-request':
      case 'plan-review':
        await this.finishSegment();
        // Nobody is typing while the owner decides (which may take an hour).
        this.typing.stop();
        await this.postCard(event);
        this.sessions.send('suspended');
        return;
      case 'approval-resolved':
        if (event.approved) this.approvedThisTurn.add(event.approvalId);
        await this.options.hooks.onApprovalResolved(event);
        this.sessions.send('processing');
        if (event.approved) this.typing.start();
        return;
      case 'error':
        await this.finishSegment();
        await this.post({ kind: 'error', message: event.message });
        return;
      case 'turn-end': {
        const shown = await this.endTurn(event);
        this.sessions.send('active');
        return shown;
      }
      case 'workstream-closed':
        await this.finishSegment();
        this.clearTimers();
        // Sent before the renderer is let go (its signal ends with it).
        this.sessions.send('closed');
        await this.sessions.idle();
        this.options.hooks.onClosed();
        return;
      default:
        return;
    }
  }

  private async startTurn(event: Extract<AgentEvent, { type: 'turn-start' }>): Promise<void> {
    await this.finishSegment();
    this.turnId = event.turnId;
    this.live?.startTurn(event.turnId);
    this.postedOther = false;
    this.answer.shown = false;
    this.approvedThisTurn.clear();
    this.ranThisTurn.clear();
    this.sessions.send('processing', event.userMessage);
    // A watch result started this turn: nobody typed it, so the thread shows it before the answer.
    if (event.origin === 'watch') {
      await this.post({ kind: 'tool-result', name: 'watch', output: event.userMessage, isError: false });
      this.postedOther = false;
    }
    this.typing.start();
  }

  private appendText(text: string): void {
    if (text.length === 0) return;
    this.typing.start();
    this.answer.append(text);
  }

  /** The final edit of the current segment (`answer`: the turn's committed answer); false when it was not shown in full. */
  private async finishSegment(answer = false): Promise<boolean> {
    if (!this.answer.open) return true;
    return (this.answerShown = await this.answer.finish(answer ? this.turnId : undefined));
  }

  /** Something of the current turn reached the thread (text, a tool line, a card). */
  private get postedThisTurn(): boolean {
    return this.postedOther || this.answer.shown;
  }

  /** Posts an approval card; when that fails the owner is told how to unblock the waiting turn. */
  private async postCard(event: Extract<AgentEvent, { type: 'approval-request' | 'plan-review' }>): Promise<void> {
    try {
      await this.options.hooks.onApprovalCard(event);
      this.postedOther = true;
    } catch (error) {
      this.logger.error({ channelId: this.options.channelId, approvalId: event.approvalId, error: describeError(error) }, 'approval card could not be posted');
      // The adapter names its own cancel command (Slack has no `/cancel`).
      await this.post({ kind: 'notice', code: 'approval-card-failed' });
    }
  }

  /** True when the turn's answer is shown in full (its final edit landed, and what it records is handed in). */
  private async endTurn(event: Extract<AgentEvent, { type: 'turn-end' }>): Promise<boolean> {
    // Only a renderer that showed the turn from its start posts its text at the end: one bound mid-turn (the
    // conversation moved to another place) did not, and the text was shown where the turn began.
    if (!this.answer.open && !this.postedThisTurn && this.turnId === event.turnId && event.text.trim().length > 0) {
      this.appendText(event.text);
    }
    const ended = await this.finishSegment();
    const shown = ended && this.answerShown && !this.closed;
    this.answerShown = true;
    this.typing.stop();
    if (event.reason === 'cancelled') {
      await this.post({ kind: 'notice', code: 'cancelled' });
      if (this.approvedThisTurn.size > 0) {
        await this.options.hooks.onTurnCancelled({ approvalIds: [...this.approvedThisTurn], ranCallIds: new Set(this.ranThisTurn) });
      }
    } else if (event.reason === 'done' && !this.postedThisTurn) {
      // The model answered nothing: say so briefly instead of leaving the thread silent (never an empty message).
      await this.post({ kind: 'text', text: EMPTY_ANSWER_NOTE });
    }
    this.tools.clear();
    this.approvedThisTurn.clear();
    this.ranThisTurn.clear();
    this.live?.endTurn();
    return shown;
  }

  private async showToolCalls(items: Extract<AgentEvent, { type: 'tool-calls' }>['items']): Promise<void> {
    await this.finishSegment();
    if ((await this.tools.postCalls(items)) > 0) this.postedOther = true;
  }

  private async showToolResult(event: Extract<AgentEvent, { type: 'tool-result' }>): Promise<void> {
    this.ranThisTurn.add(event.callId);
    await this.finishSegment();
    if (await this.tools.postResult(event)) this.postedOther = true;
  }

  private async post(message: Parameters<ChannelAdapter['post']>[1]): Promise<string | undefined> {
    try {
      const id = await this.options.adapter.post(this.options.channelId, message, this.controller.signal);
      this.postedOther = true;
      return id;
    } catch (error) {
      this.logger.warn({ kind: message.kind, channelId: this.options.channelId, error: describeError(error) }, 'post failed');
      return undefined;
    }
  }

  private clearTimers(): void {
    this.typing.stop();
    this.answer.stopTimer();
  }
}
