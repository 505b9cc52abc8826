/**
 * The answer text of a turn in the thread: segments opened at the first text, edited (or natively streamed) at most
 * every edit interval, and a final edit retried until the thread shows the whole segment. Runs on its renderer's lane.
 */
import type { ChannelAdapter, PostKey } from '../channels/channel-adapter.js';
import { scopedSignal, type LinkedSignal } from '../shared/abort.js';
import type { Logger } from '../shared/logger.js';
import { sleep } from '../shared/time.js';
import { answerKey } from './live-message.js';
import type { LiveStateRecorder } from './live-state.js';
import { openSegment, type AnswerSegment } from './streamed-message.js';

export const DEFAULT_EDIT_INTERVAL_MS = 1500;
const MAX_EDIT_INTERVAL_MS = 15_000;
const FINAL_ATTEMPTS = 4;

export interface AnswerTextOptions {
  adapter: ChannelAdapter;
  channelId: string;
  logger: () => Logger;
  /** Every post and edit of the renderer (aborted when it is disposed). */
  signal: AbortSignal;
  /** Aborted when a graceful stop begins: ends waits between retries, never a platform call. */
  quiet: AbortSignal;
  live: LiveStateRecorder | undefined;
  /** Base cadence of live edits; rate limiting only ever stretches it. */
  intervalMs: number;
  /** Runs a step on the renderer's lane (a live edit goes in order with everything else the renderer shows). */
  enqueue(step: () => Promise<void>): void;
  /** The renderer was closed: no more live edits, no more final attempts. */
  closed(): boolean;
}

export class AnswerText {
  private segment: AnswerSegment | undefined;
  /** The current segment's signal: its posts and edits use it as it is, with no signal linked per call. */
  private scope: LinkedSignal | undefined;
  private timer: NodeJS.Timeout | undefined;
  private lastFlush = 0;
  private interval: number;
  /** Set while the committed answer's final edit runs: the keys of its posts. */
  private keys: ((index: number) => PostKey) | undefined;
  /** Live edits and appends made, for benchmarks and /metrics. */
  edits = 0;
  /** Some text of the turn reached the thread. */
  shown = false;

  constructor(private readonly options: AnswerTextOptions) {
    this.interval = options.intervalMs;
  }

  get intervalMs(): number {
    return this.interval;
  }

  /** True while a segment takes text. */
  get open(): boolean {
    return this.segment !== undefined;
  }

  /** The platform signalled rate limiting: stretch the cadence (never shorten it). */
  slowDown(retryAfterMs: number): void {
    this.interval = Math.min(MAX_EDIT_INTERVAL_MS, Math.max(this.interval * 2, retryAfterMs));
  }

  append(text: string): void {
    const { adapter } = this.options;
    // The live message of a running turn carries the Stop control (where messages can be edited to remove it again;
    // a natively streamed segment cannot carry buttons, ADR 0019).
    if (this.segment === undefined) {
      const scope = scopedSignal(this.options.signal);
      this.scope = scope;
      this.segment = openSegment({
        adapter,
        channelId: this.options.channelId,
        logger: this.options.logger(),
        signal: scope.signal,
        onPosted: (ids) => this.options.live?.segment(ids),
        // The committed answer's posts at its final edit are keyed by turn: a restart that shows the answer gets the same
        // message back, not a second one (other posts are not keyed: two segments may hold the same text).
        key: (index) => this.keys?.(index),
        stoppable: adapter.capabilities.canEdit,
      });
    }
    this.segment.append(text);
    // Platforms without edits get the answer once, complete, when the segment ends.
    if (adapter.capabilities.canEdit) this.scheduleFlush();
  }

  /**
   * Final edit of the current segment: retried until the messages show the complete text. `turnId` given: the segment
   * is the turn's committed answer (its posts keyed by the turn, recorded with the segment's end, so a restart knows it
   * was shown). False when the segment could not be shown in full.
   */
  async finish(turnId?: string): Promise<boolean> {
    const segment = this.segment;
    if (!segment) return true;
    const scope = this.scope;
    this.segment = undefined;
    this.scope = undefined;
    segment.seal();
    this.stopTimer();
    if (turnId !== undefined) this.keys = answerKey(turnId);
    try {
      return await this.showFinal(segment, turnId !== undefined);
    } finally {
      this.keys = undefined;
      scope?.release();
    }
  }

  stopTimer(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
  }

  private scheduleFlush(): void {
    if (this.timer !== undefined || this.options.closed()) return;
    const wait = Math.max(0, this.lastFlush + this.interval - Date.now());
    // Purpose: throttle (edits go out at most once per interval).
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.options.enqueue(() => this.flush());
    }, wait);
  }

  private async flush(): Promise<void> {
    const segment = this.segment;
    if (!segment || this.options.closed()) return;
    this.lastFlush = Date.now();
    await this.sync(segment);
    if (segment === this.segment && segment.dirty) this.scheduleFlush();
  }

  private async sync(segment: AnswerSegment): Promise<boolean> {
    const before = segment.edits;
    const complete = await segment.sync();
    this.edits += segment.edits - before;
    if (segment.messageCount > 0) this.shown = true;
    return complete;
  }

  private async showFinal(segment: AnswerSegment, answer: boolean): Promise<boolean> {
    // The messages streamed so far are recorded before the committed answer is edited into them: a restart that finds
    // no record knows no part of the answer's final edit landed, and posts the answer (docs/design/durability.md).
    if (answer && segment.messageCount > 0) await this.options.live?.idle();
    for (let attempt = 1; attempt <= FINAL_ATTEMPTS && !this.options.closed(); attempt += 1) {
      if (await this.sync(segment)) {
        await segment.close();
        this.options.live?.segmentEnded(answer);
        return true;
      }
      // Purpose: backoff between attempts of the final edit; the wait ends early when the renderer is disposed.
      await sleep(this.interval * attempt, this.options.quiet).catch(() => undefined);
    }
    this.options.logger().error({ channelId: this.options.channelId }, 'final edit did not complete');
    await segment.close();
    return false;
  }
}
