/** Agent events → throttled posts and edits through the channel port, the same for every platform. */
import { setMaxListeners } from 'node:events';
import type { AgentEvent } from '../agent/events.js';
import type { ChannelAdapter } from '../channels/channel-adapter.js';
import { scopedSignal, type LinkedSignal } from '../shared/abort.js';
import { describeError } from '../shared/errors.js';
import { SerialLane } from '../shared/serial-lane.js';
import { sleep } from '../shared/time.js';
import type { Logger } from '../shared/logger.js';
import { answerNonce } from './live-message.js';
import { LiveStateRecorder } from './live-state.js';
import { SessionStatusLane } from './session-status-lane.js';
import { openSegment, type AnswerSegment } from './streamed-message.js';

export const DEFAULT_EDIT_INTERVAL_MS = 1500;
const MAX_EDIT_INTERVAL_MS = 15_000;
const TYPING_REFRESH_MS = 8000;
const FINAL_ATTEMPTS = 4;
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
  private segment: AnswerSegment | undefined;
  /** The current segment's signal: its posts and edits use it as it is, with no signal linked per call. */
  private segmentScope: LinkedSignal | undefined;
  private readonly toolMessages = new Map<string, { messageId: string; name: string; preview: string }>();
  private flushTimer: NodeJS.Timeout | undefined;
  private typingTimer: NodeJS.Timeout | undefined;
  private typingKick: NodeJS.Immediate | undefined;
  private lastFlush = 0;
  private intervalMs: number;
  private postedThisTurn = false;
  /** The turn being rendered. */
  private turnId: string | undefined;
  /** Set while the committed answer's final edit runs: the keys of its posts. */
  private answerKey: ((index: number, chunk: string) => string) | undefined;
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
  /** Live edits made, for benchmarks and /metrics. */
  edits = 0;
  #logger: Logger | undefined;

  constructor(private readonly options: StreamRendererOptions) {
    this.intervalMs = options.editIntervalMs ?? DEFAULT_EDIT_INTERVAL_MS;
    const save = options.hooks.onLiveState;
    this.live = save === undefined ? undefined : new LiveStateRecorder((state) => save(state), () => this.logger);
    setMaxListeners(0, this.controller.signal);
    this.sessions = new SessionStatusLane(options.adapter, options.channelId, this.controller.signal, () => this.logger);
  }

  private get logger(): Logger {
    const { logger, logBindings } = this.options;
    return (this.#logger ??= logBindings === undefined ? logger : logger.child(logBindings));
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
    this.intervalMs = Math.min(MAX_EDIT_INTERVAL_MS, Math.max(this.intervalMs * 2, retryAfterMs));
  }

  get currentIntervalMs(): number {
    return this.intervalMs;
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
        await this.finishSegment();
        await this.postToolCalls(event.items);
        return;
      case 'tool-result':
        this.ranThisTurn.add(event.callId);
        await this.postToolResult(event);
        return;
      case 'approval-request':
      case 'plan-review':
        await this.finishSegment();
        // Nobody is typing while the owner decides (which may take an hour).
        this.stopTyping();
        await this.postCard(event);
        this.sessions.send('suspended');
        return;
      case 'approval-resolved':
        if (event.approved) this.approvedThisTurn.add(event.approvalId);
        await this.options.hooks.onApprovalResolved(event);
        this.sessions.send('processing');
        if (event.approved) this.startTyping();
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
    this.answerKey = undefined;
    this.live?.startTurn(event.turnId);
    this.postedThisTurn = false;
    this.approvedThisTurn.clear();
    this.ranThisTurn.clear();
    this.sessions.send('processing', event.userMessage);
    // A watch result started this turn: nobody typed it, so the thread shows it before the answer.
    if (event.origin === 'watch') {
      await this.post({ kind: 'tool-result', name: 'watch', output: event.userMessage, isError: false });
      this.postedThisTurn = false;
    }
    this.startTyping();
  }

  private appendText(text: string): void {
    if (text.length === 0) return;
    this.startTyping();
    // The live message of a running turn carries the Stop control (where messages can be edited to remove it again;
    // a natively streamed segment cannot carry buttons, ADR 0019).
    if (this.segment === undefined) {
      const scope = scopedSignal(this.controller.signal);
      this.segmentScope = scope;
      this.segment = openSegment({
        ...this.options,
        logger: this.logger,
        signal: scope.signal,
        onPosted: (ids) => this.live?.segment(ids),
        // The committed answer's posts at its final edit are keyed by turn: a restart that shows the answer gets the same
        // message back, not a second one (other posts are not keyed: two segments may hold the same text).
        nonce: (index, chunk) => this.answerKey?.(index, chunk),
        stoppable: this.options.adapter.capabilities.canEdit,
      });
    }
    this.segment.append(text);
    // Platforms without edits get the answer once, complete, when the segment ends.
    if (this.options.adapter.capabilities.canEdit) this.scheduleFlush();
  }

  private scheduleFlush(): void {
    if (this.flushTimer !== undefined || this.closed) return;
    const wait = Math.max(0, this.lastFlush + this.intervalMs - Date.now());
    // Purpose: throttle (edits go out at most once per interval).
    this.flushTimer = setTimeout(() => {
      this.flushTimer = undefined;
      void this.enqueue(() => this.flush());
    }, wait);
  }

  private async flush(): Promise<void> {
    const segment = this.segment;
    if (!segment || this.closed) return;
    this.lastFlush = Date.now();
    const before = segment.edits;
    await segment.sync();
    this.edits += segment.edits - before;
    if (segment.messageCount > 0) this.postedThisTurn = true;
    if (segment === this.segment && segment.dirty) this.scheduleFlush();
  }

  /**
   * Final edit of the current segment: retried until the messages show the complete text. `answer`: the segment is
   * the turn's committed answer (recorded with the segment's end, so a restart knows it was shown). False when the
   * segment could not be shown in full.
   */
  private async finishSegment(answer = false): Promise<boolean> {
    const segment = this.segment;
    if (!segment) return true;
    const scope = this.segmentScope;
    this.segment = undefined;
    this.segmentScope = undefined;
    segment.seal();
    if (this.flushTimer !== undefined) clearTimeout(this.flushTimer);
    this.flushTimer = undefined;
    if (answer && this.turnId !== undefined) this.answerKey = answerNonce(this.turnId);
    try {
      return (this.answerShown = await this.showFinal(segment, answer));
    } finally {
      this.answerKey = undefined;
      scope?.release();
    }
  }

  private async showFinal(segment: AnswerSegment, answer: boolean): Promise<boolean> {
    // The messages streamed so far are recorded before the committed answer is edited into them: a restart that finds
    // no record knows no part of the answer's final edit landed, and posts the answer (docs/design/durability.md).
    if (answer && segment.messageCount > 0) await this.live?.idle();
    for (let attempt = 1; attempt <= FINAL_ATTEMPTS && !this.closed; attempt += 1) {
      const before = segment.edits;
      const complete = await segment.sync();
      this.edits += segment.edits - before;
      if (segment.messageCount > 0) this.postedThisTurn = true;
      if (complete) {
        await segment.close();
        this.live?.segmentEnded(answer);
        return true;
      }
      // Purpose: backoff between attempts of the final edit; the wait ends early when the renderer is disposed.
      await sleep(this.intervalMs * attempt, this.quiet.signal).catch(() => undefined);
    }
    this.logger.error({ channelId: this.options.channelId }, 'final edit did not complete');
    await segment.close();
    return false;
  }

  /** Posts an approval card; when that fails the owner is told how to unblock the waiting turn. */
  private async postCard(event: Extract<AgentEvent, { type: 'approval-request' | 'plan-review' }>): Promise<void> {
    try {
      await this.options.hooks.onApprovalCard(event);
      this.postedThisTurn = true;
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
    if (!this.segment && !this.postedThisTurn && this.turnId === event.turnId && event.text.trim().length > 0) {
      this.appendText(event.text);
    }
    const ended = await this.finishSegment();
    const shown = ended && this.answerShown && !this.closed;
    this.answerShown = true;
    this.stopTyping();
    if (event.reason === 'cancelled') {
      await this.post({ kind: 'notice', code: 'cancelled' });
      if (this.approvedThisTurn.size > 0) {
        await this.options.hooks.onTurnCancelled({ approvalIds: [...this.approvedThisTurn], ranCallIds: new Set(this.ranThisTurn) });
      }
    } else if (event.reason === 'done' && !this.postedThisTurn) {
      // The model answered nothing: say so briefly instead of leaving the thread silent (never an empty message).
      await this.post({ kind: 'text', text: EMPTY_ANSWER_NOTE });
    }
    this.toolMessages.clear();
    this.approvedThisTurn.clear();
    this.ranThisTurn.clear();
    this.live?.endTurn();
    return shown;
  }

  private async postToolCalls(items: Extract<AgentEvent, { type: 'tool-calls' }>['items']): Promise<void> {
    for (const item of items) {
      const messageId = await this.post({ kind: 'tool-call', name: item.name, preview: item.preview, status: 'running' });
      if (messageId === undefined) continue;
      this.toolMessages.set(item.callId, { messageId, name: item.name, preview: item.preview });
      this.live?.toolPosted(item.callId, { messageId, name: item.name, preview: item.preview });
    }
  }

  private async postToolResult(event: Extract<AgentEvent, { type: 'tool-result' }>): Promise<void> {
    await this.finishSegment();
    const shown = this.toolMessages.get(event.callId);
    this.toolMessages.delete(event.callId);
    this.live?.toolDone(event.callId);
    const status = event.isError ? 'error' : 'done';
    if (shown) {
      const message = { kind: 'tool-call', name: shown.name, preview: shown.preview, status, output: event.output } as const;
      try {
        await this.options.adapter.edit(this.options.channelId, shown.messageId, message, this.controller.signal);
        return;
      } catch (error) {
        this.logger.warn({ error: describeError(error) }, 'tool card edit failed');
      }
    }
    await this.post({ kind: 'tool-result', name: event.name, output: event.output, isError: event.isError });
  }

  private async post(message: Parameters<ChannelAdapter['post']>[1]): Promise<string | undefined> {
    try {
      const id = await this.options.adapter.post(this.options.channelId, message, this.controller.signal);
      this.postedThisTurn = true;
      return id;
    } catch (error) {
      this.logger.warn({ kind: message.kind, channelId: this.options.channelId, error: describeError(error) }, 'post failed');
      return undefined;
    }
  }

  private startTyping(): void {
    if (this.typingTimer !== undefined || this.closed) return;
    const tick = (): void => {
      void this.options.adapter.setTyping(this.options.channelId, this.controller.signal).catch(() => undefined);
    };
    // Purpose: deprioritising, not ordering. The first indicator goes out after the work already under way (a starting
    // turn's model request): the request is what the writer waits for, the indicator is cosmetic.
    this.typingKick = setImmediate(tick);
    // Purpose: heartbeat (the platform shows the indicator for a few seconds only).
    this.typingTimer = setInterval(tick, this.options.typingIntervalMs ?? TYPING_REFRESH_MS);
    this.typingTimer.unref();
  }

  private stopTyping(): void {
    if (this.typingTimer !== undefined) clearInterval(this.typingTimer);
    if (this.typingKick !== undefined) clearImmediate(this.typingKick);
    this.typingTimer = undefined;
    this.typingKick = undefined;
  }

  private clearTimers(): void {
    this.stopTyping();
    if (this.flushTimer !== undefined) clearTimeout(this.flushTimer);
    this.flushTimer = undefined;
  }
}
