/** One answer segment shown by the platform's native stream, falling back to a post/edit LiveMessage on the first error. */
import type { NativeStream } from '../channels/channel-adapter.js';
import { describeError } from '../shared/errors.js';
import { nativeStream } from './channel-features.js';
import { LiveMessage, type LiveMessageOptions } from './live-message.js';

/** What the renderer needs of a segment, whichever way it is shown. */
export interface AnswerSegment {
  append(text: string): void;
  readonly content: string;
  readonly messageCount: number;
  /** True when the platform does not yet show the whole text. */
  readonly dirty: boolean;
  /** Platform writes made (edits or appends), for benchmarks and /metrics. */
  readonly edits: number;
  /** Brings the platform up to date; false when some write failed (the next sync retries it). */
  sync(): Promise<boolean>;
  /** The segment gets no more text: the next sync is the final one (a Stop control is removed). */
  seal(): void;
  /** Ends the segment once its text is shown (a native stream is stopped); never throws. */
  close(): Promise<void>;
}

/** The segment for new answer text: natively streamed when the adapter offers a stream here, else edited in place. */
export function openSegment(options: LiveMessageOptions): AnswerSegment {
  const stream = nativeStream(options.adapter, options.channelId);
  return stream ? new StreamedMessage(stream, options) : new LiveMessage(options);
}

/**
 * Text appended to a native stream as it arrives. The first failed append gives the stream up: the text the stream
 * did not take is shown from then on by a LiveMessage (posted after the streamed messages, so the thread reads in
 * order), and the stream is stopped best effort.
 */
export class StreamedMessage implements AnswerSegment {
  private text = '';
  /** Characters of `text` the stream took. */
  private sent = 0;
  private fallback: LiveMessage | undefined;
  private appends = 0;
  private sealed = false;
  /** How many of the stream's messages were reported to `onPosted`. */
  private reported = 0;

  constructor(
    private readonly stream: NativeStream,
    private readonly options: LiveMessageOptions,
  ) {}

  append(text: string): void {
    this.text += text;
    this.fallback?.append(text);
  }

  seal(): void {
    this.sealed = true;
    this.fallback?.seal();
  }

  get content(): string {
    return this.text;
  }

  get messageCount(): number {
    return this.stream.messageCount + (this.fallback?.messageCount ?? 0);
  }

  get dirty(): boolean {
    if (this.fallback) return this.fallback.dirty;
    return this.text.slice(this.sent).length > 0 && this.text.trim().length > 0;
  }

  get edits(): number {
    return this.appends + (this.fallback?.edits ?? 0);
  }

  async sync(): Promise<boolean> {
    if (this.fallback) return this.fallback.sync();
    // Platforms refuse blank messages: nothing is streamed before the first visible character.
    if (this.text.trim().length === 0) return true;
    const delta = this.text.slice(this.sent);
    if (delta.length === 0) return true;
    try {
      await this.stream.append(delta, this.options.signal);
      this.sent += delta.length;
      this.appends += 1;
      this.reportStarted();
      return true;
    } catch (error) {
      this.options.logger.warn(
        { channelId: this.options.channelId, error: describeError(error) },
        'native stream failed; showing the rest by message edits',
      );
      this.reportStarted();
      await this.stopStream();
      // The fallback's messages follow the streamed ones: both are recorded, so a restart settles them all.
      const onPosted = this.options.onPosted;
      const streamed = [...this.stream.messageIds];
      this.fallback = new LiveMessage({
        ...this.options,
        ...(onPosted && { onPosted: (ids: readonly string[]) => onPosted([...streamed, ...ids]) }),
      });
      this.fallback.append(this.text.slice(this.sent));
      if (this.sealed) this.fallback.seal();
      return this.fallback.sync();
    }
  }

  async close(): Promise<void> {
    if (!this.fallback) await this.stopStream();
  }

  /**
   * A message the stream started is recorded (`onPosted`, the renderer's `live_state`) as soon as it is known, so a
   * process killed before the stream's `finish` leaves its id for the restart to end and edit the stream.
   */
  private reportStarted(): void {
    const ids = this.stream.messageIds;
    if (ids.length === this.reported) return;
    this.reported = ids.length;
    this.options.onPosted?.([...ids]);
  }

  private async stopStream(): Promise<void> {
    if (this.stream.messageCount === 0) return;
    try {
      // The committed answer's final message carries its key (the stream is closed during its final edit).
      await this.stream.finish(this.options.signal, this.options.key?.(this.stream.messageCount - 1));
    } catch (error) {
      this.options.logger.warn(
        { channelId: this.options.channelId, error: describeError(error) },
        'native stream could not be stopped',
      );
    }
  }
}
