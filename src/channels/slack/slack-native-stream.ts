/**
 * One answer segment over Slack's native streaming (`chat.startStream` / `chat.appendStream` / `chat.stopStream`),
 * rolled over to a new message before Slack's limits. ADR 0019.
 */
import type { NativeStream, PostKey, SessionStatus } from '../channel-adapter.js';
import { answerMetadata } from './slack-answer-posts.js';
import { slackPlatformError } from './slack-web.js';

export interface StreamLimits {
  /** Longest `markdown_text` of one call (documented: 12,000 characters). */
  callChars: number;
  /**
   * Most UTF-8 bytes one streamed message holds. Slack refuses appends past roughly 10,600-11,300 bytes of body text
   * with `msg_too_long` (undocumented, measured by others), so a message rolls over well before.
   */
  messageBytes: number;
  /** Slack ends a stream by itself about five minutes after it started (`message_not_in_streaming_state`): roll over before. */
  messageAgeMs: number;
}

export const SLACK_STREAM_LIMITS: StreamLimits = { callChars: 12_000, messageBytes: 9_000, messageAgeMs: 4 * 60_000 };

/** Where the stream goes, and for whom (Slack requires the recipient when streaming outside a DM). */
export interface StreamTarget {
  channel: string;
  threadTs: string;
  recipient?: { userId: string; teamId: string } | undefined;
  /** The thread's agent session status, which stopping a message keeps (Slack would set `active`); undefined: none. */
  sessionStatus?: (() => SessionStatus | undefined) | undefined;
}

export type StreamCall = (
  method: string,
  args: Record<string, unknown>,
  signal: AbortSignal,
) => Promise<Record<string, unknown>>;

/** Errors after which the current message is done but a fresh stream may take the text (too long, or ended by Slack). */
const ROLL_OVER_ERRORS = new Set(['msg_too_long', 'message_not_in_streaming_state']);
const FENCE = '```';

export class SlackNativeStream implements NativeStream {
  private ts: string | undefined;
  private bytes = 0;
  private startedAt = 0;
  /** The current message ends inside a code block: closed at rollover and reopened in the next message. */
  private inFence = false;
  private readonly started: string[] = [];
  private readonly limits: StreamLimits;

  constructor(
    private readonly target: StreamTarget,
    private readonly call: StreamCall,
    limits: Partial<StreamLimits> = {},
    private readonly onStart: (error: unknown) => void = () => undefined,
    private readonly now: () => number = Date.now,
  ) {
    const merged = { ...SLACK_STREAM_LIMITS, ...limits };
    // A message never takes more than one call can carry, and always has room for a character and a fence.
    this.limits = { ...merged, messageBytes: Math.max(16, Math.min(merged.messageBytes, merged.callChars)) };
  }

  get messageCount(): number {
    return this.started.length;
  }

  get messageIds(): readonly string[] {
    return this.started;
  }

  async append(text: string, signal: AbortSignal): Promise<void> {
    let rest = defuse(text);
    while (rest.length > 0) {
      if (this.ts !== undefined && this.now() - this.startedAt >= this.limits.messageAgeMs) await this.rollOver(signal);
      const room = this.limits.messageBytes - (this.ts === undefined ? reopenBytes(this.inFence) : this.bytes);
      const piece = cutToFit(rest, room);
      if (piece.length === 0) {
        await this.rollOver(signal);
        continue;
      }
      await this.write(piece, signal);
      rest = rest.slice(piece.length);
      // The piece was cut to fit: the message is full.
      if (rest.length > 0) await this.rollOver(signal);
    }
  }

  /** Stops the current message; with `key` it carries the committed answer's metadata (`slack-answer-posts.ts`). */
  async finish(signal: AbortSignal, key?: PostKey): Promise<void> {
    await this.stop(signal, false, key);
  }

  private async write(piece: string, signal: AbortSignal): Promise<void> {
    if (this.ts === undefined) {
      await this.start(piece, signal);
    } else {
      try {
        await this.call(
          'chat.appendStream',
          { channel: this.target.channel, ts: this.ts, markdown_text: piece },
          signal,
        );
        this.bytes += Buffer.byteLength(piece);
      } catch (error) {
        if (!ROLL_OVER_ERRORS.has(slackPlatformError(error) ?? '')) throw error;
        // Slack ended or filled this message: what it showed stays, the piece opens the next message (once).
        await this.stop(signal, true);
        await this.start(piece, signal);
      }
    }
    if (countFences(piece) % 2 === 1) this.inFence = !this.inFence;
  }

  private async start(piece: string, signal: AbortSignal): Promise<void> {
    const text = (this.inFence ? `${FENCE}\n` : '') + piece;
    const { channel, threadTs, recipient } = this.target;
    const who = recipient ? { recipient_user_id: recipient.userId, recipient_team_id: recipient.teamId } : {};
    let result: Record<string, unknown>;
    try {
      result = await this.call(
        'chat.startStream',
        { channel, thread_ts: threadTs, markdown_text: text, ...who },
        signal,
      );
    } catch (error) {
      this.onStart(error);
      throw error;
    }
    this.onStart(undefined);
    this.ts = String(result.ts ?? '');
    this.startedAt = this.now();
    this.bytes = Buffer.byteLength(text);
    this.started.push(this.ts);
  }

  private async rollOver(signal: AbortSignal): Promise<void> {
    await this.stop(signal, false);
  }

  /** Stops the current message (closing an open code block); a stream Slack already ended counts as stopped. */
  private async stop(signal: AbortSignal, alreadyEnded: boolean, key?: PostKey): Promise<void> {
    const ts = this.ts;
    if (ts === undefined) return;
    this.ts = undefined;
    const close = this.inFence && !alreadyEnded ? { markdown_text: `\n${FENCE}` } : {};
    const session = this.target.sessionStatus?.();
    const keep = session === undefined ? {} : { session_status: session };
    const metadata = key === undefined ? {} : { metadata: answerMetadata(key) };
    try {
      await this.call('chat.stopStream', { channel: this.target.channel, ts, ...close, ...keep, ...metadata }, signal);
    } catch (error) {
      if (!ROLL_OVER_ERRORS.has(slackPlatformError(error) ?? '')) throw error;
    }
  }
}

/** Bytes a fresh message spends reopening a code block. */
function reopenBytes(inFence: boolean): number {
  return inFence ? FENCE.length + 1 : 0;
}

function countFences(text: string): number {
  return text.split(FENCE).length - 1;
}

/**
 * The longest prefix of `text` within `roomBytes` UTF-8 bytes (never splitting a surrogate pair); when the whole
 * text does not fit, cut after the last line break (else space) of that prefix, so messages end between words.
 */
export function cutToFit(text: string, roomBytes: number): string {
  if (roomBytes <= 0) return '';
  if (Buffer.byteLength(text) <= roomBytes) return text;
  let end = 0;
  let bytes = 0;
  for (const char of text) {
    const size = Buffer.byteLength(char);
    if (bytes + size > roomBytes) break;
    bytes += size;
    end += char.length;
  }
  const prefix = text.slice(0, end);
  const half = prefix.length / 2;
  const newline = prefix.lastIndexOf('\n');
  const space = prefix.lastIndexOf(' ');
  const breakAt = newline > half ? newline : space > half ? space : -1;
  return breakAt > 0 ? prefix.slice(0, breakAt + 1) : prefix;
}

/**
 * Model text can hold Slack's special tokens (`<!channel>`, `<@U…>`): a zero-width space after `<` keeps them text.
 * A `<` at the end is defused too, as the next append could complete a token.
 */
export function defuse(text: string): string {
  return text.replace(/<(?=[!@#]|$)/g, '<\u200B');
}
