/**
 * The fake Slack's native streaming: chat.startStream / chat.appendStream / chat.stopStream, strict as Slack is
 * (unknown ts, a stream that ended, text limits) so the adapter's rollover and fallback are tested for real.
 */
import { SESSION_STATUSES, type FakeSlackSessions } from './fake-slack-sessions.js';
import { BOT_ID, BOT_USER_ID, type FakeSlackMessage, type FakeSlackState } from './fake-slack-state.js';
import { metadataArg } from './fake-slack-web.js';

type Reply = Record<string, unknown>;

/** What the fake workspace allows; `enabled: false` answers `unknown_method`, as a workspace without streaming. */
export interface FakeStreamRules {
  enabled: boolean;
  /** Longest markdown_text of one call (Slack documents 12,000 characters). */
  callChars: number;
  /** Most UTF-8 bytes a streamed message holds (Slack refuses past roughly 10,600 with msg_too_long). */
  messageBytes: number;
}

export class FakeSlackStreams {
  readonly rules: FakeStreamRules = { enabled: false, callChars: 12_000, messageBytes: 10_600 };
  /** Every error the streaming methods answered, oldest first. */
  readonly refusals: string[] = [];
  /** `<channel>:<ts>` → whether the message is still streaming. */
  private readonly open = new Map<string, boolean>();

  constructor(
    private readonly state: FakeSlackState,
    private readonly sessions?: FakeSlackSessions,
  ) {}

  /** Whether the message was streamed (open or stopped). */
  isStreamed(message: FakeSlackMessage): boolean {
    return this.open.has(key(message.channel, message.ts));
  }

  /** Whether the message is still streaming (never stopped). */
  isOpen(message: FakeSlackMessage): boolean {
    return this.open.get(key(message.channel, message.ts)) === true;
  }

  /** Slack ends a stream by itself (its lifetime ran out): later appends get message_not_in_streaming_state. */
  expire(message: FakeSlackMessage): void {
    if (this.isOpen(message)) this.open.set(key(message.channel, message.ts), false);
  }

  handle(method: string, body: Record<string, unknown>): Reply | undefined {
    if (!['chat.startStream', 'chat.appendStream', 'chat.stopStream'].includes(method)) return undefined;
    const reply = !this.rules.enabled
      ? { ok: false, error: 'unknown_method' }
      : method === 'chat.startStream'
        ? this.start(body)
        : method === 'chat.appendStream'
          ? this.append(body)
          : this.stop(body);
    if (reply.ok !== true) this.refusals.push(String(reply.error));
    return reply;
  }

  private start(body: Record<string, unknown>): Reply {
    const channel = String(body.channel ?? '');
    const threadTs = typeof body.thread_ts === 'string' && body.thread_ts !== '' ? body.thread_ts : undefined;
    if (!channel) return { ok: false, error: 'channel_not_found' };
    if (!threadTs)
      return {
        ok: false,
        error: 'invalid_arguments',
        response_metadata: { messages: ['[ERROR] missing required field: thread_ts'] },
      };
    if (!this.state.find(channel, threadTs)) return { ok: false, error: 'thread_not_found' };
    if (
      !channel.startsWith('D') &&
      (typeof body.recipient_user_id !== 'string' || typeof body.recipient_team_id !== 'string')
    ) {
      return {
        ok: false,
        error: 'invalid_arguments',
        response_metadata: { messages: ['[ERROR] recipient_user_id and recipient_team_id are required outside DMs'] },
      };
    }
    const text = typeof body.markdown_text === 'string' ? body.markdown_text : '';
    const tooLong = this.tooLong('', text);
    if (tooLong) return tooLong;
    const message = this.state.addMessage({ channel, user: BOT_USER_ID, botId: BOT_ID, text, threadTs });
    this.open.set(key(channel, message.ts), true);
    return { ok: true, channel, ts: message.ts };
  }

  private append(body: Record<string, unknown>): Reply {
    const found = this.streaming(body);
    if ('error' in found) return found.error;
    if (typeof body.markdown_text !== 'string' || body.markdown_text === '')
      return { ok: false, error: 'invalid_arguments' };
    const tooLong = this.tooLong(found.message.text, body.markdown_text);
    if (tooLong) return tooLong;
    this.show(found.message, found.message.text + body.markdown_text);
    return { ok: true, channel: found.message.channel, ts: found.message.ts };
  }

  private stop(body: Record<string, unknown>): Reply {
    const found = this.streaming(body);
    if ('error' in found) return found.error;
    const { message } = found;
    const sessionStatus = body.session_status ?? 'active';
    if (typeof sessionStatus !== 'string' || !SESSION_STATUSES.has(sessionStatus))
      return { ok: false, error: 'invalid_arguments' };
    const metadata = metadataArg(body);
    if (metadata !== null && metadata !== undefined && 'error' in metadata) return { ok: false, error: metadata.error };
    if (typeof body.markdown_text === 'string' && body.markdown_text !== '') {
      const tooLong = this.tooLong(message.text, body.markdown_text);
      if (tooLong) return tooLong;
      this.show(message, message.text + body.markdown_text);
    }
    if (metadata) message.metadata = metadata;
    if (Array.isArray(body.blocks)) message.blocks = [...message.blocks, ...(body.blocks as Record<string, unknown>[])];
    this.open.set(key(message.channel, message.ts), false);
    this.sessions?.streamStopped(message.channel, message.threadTs, sessionStatus);
    return { ok: true, channel: message.channel, ts: message.ts, message: { ts: message.ts, text: message.text } };
  }

  /** The open stream `body` names, or Slack's error for an unknown message or one that is not streaming. */
  private streaming(body: Record<string, unknown>): { message: FakeSlackMessage } | { error: Reply } {
    const message = this.state.find(String(body.channel ?? ''), String(body.ts ?? ''));
    if (!message) return { error: { ok: false, error: 'message_not_found' } };
    if (!this.isOpen(message)) return { error: { ok: false, error: 'message_not_in_streaming_state' } };
    return { message };
  }

  private tooLong(current: string, added: string): Reply | undefined {
    if (added.length > this.rules.callChars) return { ok: false, error: 'msg_too_long' };
    if (Buffer.byteLength(current) + Buffer.byteLength(added) > this.rules.messageBytes)
      return { ok: false, error: 'msg_too_long' };
    return undefined;
  }

  private show(message: FakeSlackMessage, text: string): void {
    message.text = text;
    message.history.push(text);
  }
}

function key(channel: string, ts: string): string {
  return `${channel}:${ts}`;
}
