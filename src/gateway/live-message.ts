/** One streamed answer segment: text shown in a live message edited at a cadence, split at the platform limit. */
import type { ChannelAdapter, OutboundMessage, PostKey } from '../channels/channel-adapter.js';
import { isGoneError } from '../channels/channel-errors.js';
import { ChannelError } from '../shared/errors.js';
import { chunkMessage } from '../channels/format/chunk-message.js';
import type { Logger } from '../shared/logger.js';
import type { AnswerSegment } from './streamed-message.js';
import { describeError } from '../shared/errors.js';

interface Posted {
  messageId: string;
  content: string;
  /** The message shows the Stop control. */
  stop: boolean;
}

export interface LiveMessageOptions {
  adapter: ChannelAdapter;
  channelId: string;
  logger: Logger;
  signal: AbortSignal;
  /** Called with every message id of the segment whenever one is added or replaced (the gateway records them). */
  onPosted?: (messageIds: readonly string[]) => void;
  /**
   * The key of the post of chunk `index` (see `answerKey`): a post repeated after a crash returns the message the first
   * one made (on platforms with `answerPosts`), so a restart never shows an answer twice.
   */
  key?: (index: number) => PostKey | undefined;
  /** The last message carries the Stop control until the segment is sealed (a running turn's live message). */
  stoppable?: boolean;
}

/**
 * Holds the text of one segment and the messages that show it. `sync()` makes the messages show the current
 * text (posting new messages past the length limit, editing changed ones); only changed messages are touched.
 */
export class LiveMessage implements AnswerSegment {
  private text = '';
  private readonly posted: Posted[] = [];
  /** The platform refused us the channel (missing permission): retrying cannot help, so the segment stops trying. */
  private refused = false;
  /** Sealed: the segment is final, so no message carries the Stop control any more. */
  private sealed = false;
  edits = 0;

  constructor(private readonly options: LiveMessageOptions) {}

  append(text: string): void {
    this.text += text;
  }

  /** The segment is final: the next sync removes the Stop control. */
  seal(): void {
    this.sealed = true;
  }

  get content(): string {
    return this.text;
  }

  get messageCount(): number {
    return this.posted.length;
  }

  /** The messages of a segment shown by an earlier process (after a restart); the next sync edits each of them. */
  adopt(messageIds: readonly string[]): void {
    for (const messageId of messageIds) this.posted.push({ messageId, content: '', stop: false });
  }

  private reportPosted(): void {
    this.options.onPosted?.(this.posted.map((entry) => entry.messageId));
  }

  /** True when the messages do not yet show the whole text. */
  get dirty(): boolean {
    const chunks = this.render();
    return (
      !this.refused &&
      chunks.some((chunk, index) => !this.shows(this.posted[index], chunk, this.wantsStop(index, chunks.length)))
    );
  }

  private wantsStop(index: number, count: number): boolean {
    return this.options.stoppable === true && !this.sealed && index === count - 1;
  }

  private shows(posted: Posted | undefined, chunk: string, stop: boolean): boolean {
    return posted !== undefined && posted.content === chunk && posted.stop === stop;
  }

  /** Brings the messages up to date; returns false when some post or edit failed (the next sync retries it). */
  async sync(): Promise<boolean> {
    const { adapter, channelId, signal } = this.options;
    let complete = true;
    if (this.refused) return true;
    const chunks = this.render();
    for (const [index, chunk] of chunks.entries()) {
      const current = this.posted[index];
      const stop = this.wantsStop(index, chunks.length);
      if (this.shows(current, chunk, stop)) continue;
      try {
        if (current) {
          await this.editOrRepost(current, chunk, stop);
        } else {
          const key = this.options.key?.(index);
          const messageId = await adapter.post(channelId, textMessage(chunk, stop, key), signal);
          this.posted.push({ messageId, content: chunk, stop });
          this.reportPosted();
        }
      } catch (error) {
        if (error instanceof ChannelError && error.code === 'FORBIDDEN') {
          this.refused = true;
          this.options.logger.error(
            { channelId, error: describeError(error) },
            "no permission to post in this channel; check the bot's channel permissions",
          );
          return true;
        }
        complete = false;
        this.options.logger.warn({ channelId, error: describeError(error) }, 'live message update failed');
        if (!current) break;
      }
    }
    return complete;
  }

  /** Nothing to end: edited messages are final as they are. */
  async close(): Promise<void> {
    return Promise.resolve();
  }

  /** Edits a shown chunk; when the message is gone (deleted by a moderator) the chunk is posted anew. */
  private async editOrRepost(current: Posted, chunk: string, stop: boolean): Promise<void> {
    const { adapter, channelId, signal } = this.options;
    try {
      await adapter.edit(channelId, current.messageId, textMessage(chunk, stop), signal);
      this.edits += 1;
    } catch (error) {
      if (!isGoneError(error)) throw error;
      this.options.logger.info({ channelId }, 'live message was deleted; posting it again');
      current.messageId = await adapter.post(channelId, textMessage(chunk, stop), signal);
      this.reportPosted();
    }
    current.content = chunk;
    current.stop = stop;
  }

  /** The chunks to show; blank text shows nothing (platforms refuse empty messages). */
  private render(): string[] {
    if (this.text.trim().length === 0) return [];
    const limit = this.options.adapter.capabilities.maxMessageLength;
    return chunkMessage(this.text, limit).filter((chunk) => chunk.trim().length > 0);
  }
}

/**
 * The post keys of a turn's committed answer, by chunk: the live renderer's final edit and a restart that shows the
 * committed answer (`again`) derive the same key for the same chunk.
 */
export function answerKey(turnId: string, again = false): (index: number) => PostKey {
  return (part) => ({ turnId, segment: 'answer', part, ...(again ? { again } : {}) });
}

function textMessage(text: string, stop: boolean, key?: PostKey): OutboundMessage {
  const message: OutboundMessage = stop ? { kind: 'text', text, stoppable: true } : { kind: 'text', text };
  return key === undefined ? message : { ...message, key };
}
