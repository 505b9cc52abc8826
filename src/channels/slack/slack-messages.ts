/**
 * The Slack adapter's own messages: posts (a committed answer's carries its key, `slack-answer-posts.ts`), edits, and
 * the opener message a thread hangs off.
 */
import type { OutboundMessage, ThreadOrigin } from '../channel-adapter.js';
import { answerMetadata, findAnswerPost } from './slack-answer-posts.js';
import { renderSlackMessage, withStopButton } from './slack-blocks.js';
import type { SlackCalls } from './slack-calls.js';
import { parseTarget, threadKey } from './slack-events.js';
import { escapeSlackText } from './slack-format.js';
import type { SlackThreadMemory } from './slack-threads.js';

export class SlackMessages {
  constructor(
    private readonly calls: SlackCalls,
    private readonly slashCommand: string,
    private readonly threads: SlackThreadMemory,
  ) {}

  async post(channelId: string, message: OutboundMessage, signal: AbortSignal): Promise<string> {
    const { channel, threadTs } = parseTarget(channelId);
    const body = this.render(channelId, message);
    // A committed answer's post carries its key as metadata; one an earlier process may have made is looked for first.
    const key = message.kind === 'text' ? message.key : undefined;
    const metadata = key === undefined ? {} : { metadata: answerMetadata(key) };
    const earlier = key?.again === true ? await findAnswerPost(this.calls.plain, channelId, key, signal) : undefined;
    if (earlier !== undefined) {
      const update = { channel, ts: earlier, text: body.text, blocks: body.blocks ?? [], ...metadata };
      await this.calls.call('chat.update', update, channelId, signal);
      return earlier;
    }
    const args = {
      channel,
      ...(threadTs ? { thread_ts: threadTs } : {}),
      ...body,
      ...metadata,
      unfurl_links: false,
      unfurl_media: false,
    };
    const result = await this.calls.call('chat.postMessage', args, channelId, signal);
    return String(result.ts ?? '');
  }

  async edit(channelId: string, messageId: string, message: OutboundMessage, signal: AbortSignal): Promise<void> {
    const { channel } = parseTarget(channelId);
    const body = this.render(channelId, message);
    await this.calls.call(
      'chat.update',
      { channel, ts: messageId, text: body.text, blocks: body.blocks ?? [] },
      channelId,
      signal,
    );
  }

  /**
   * A Slack thread hangs off a message: an @mention's thread is the user's own message; otherwise (an ask command)
   * an opener message is posted first. Resolves with `<channel>:<ts>`.
   */
  async startThread(channelId: string, name: string, origin: ThreadOrigin, signal: AbortSignal): Promise<string> {
    const { channel } = parseTarget(channelId);
    const requester = origin.requester?.id;
    let ts = origin.fromMessageId;
    if (!ts) {
      const topic = escapeSlackText(name.replace(/\s+/g, ' ').trim() || 'Sandpiper');
      const text =
        requester && /^[UW][A-Z0-9]+$/.test(requester) ? `<@${requester}> asked: *${topic}*` : `:thread: *${topic}*`;
      const result = await this.calls.call(
        'chat.postMessage',
        { channel, text, unfurl_links: false, unfurl_media: false },
        channel,
        signal,
      );
      ts = String(result.ts ?? '');
    }
    if (requester) this.threads.remember(channel, requester, ts);
    return threadKey(channel, ts);
  }

  /** The Slack body of a message; a stoppable live message in a thread gets the Stop button (it names the thread). */
  private render(channelId: string, message: OutboundMessage): ReturnType<typeof renderSlackMessage> {
    const body = renderSlackMessage(message, this.slashCommand);
    const stoppable =
      message.kind === 'text' && message.stoppable === true && parseTarget(channelId).threadTs !== undefined;
    return stoppable ? withStopButton(body, channelId) : body;
  }
}
