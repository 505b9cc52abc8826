/** Private answers on Slack: an interaction's `response_url`, else an ephemeral message; never throws. */
import type { Logger } from '../../shared/logger.js';
import { truncate } from '../format/truncate.js';
import type { SlackCalls } from './slack-calls.js';
import { parseTarget } from './slack-events.js';
import { slackCommandHints, toMrkdwn } from './slack-format.js';
import type { ReplyTarget } from './slack-interactions.js';
import { bestEffort, postToResponseUrl } from './slack-web.js';

export class SlackPrivateReplies {
  constructor(
    private readonly calls: SlackCalls,
    private readonly slash: string,
    private readonly logger: Logger,
  ) {}

  /** A private message's mrkdwn: command hints for this app's slash command, within Slack's ephemeral text limit. */
  text(text: string): string {
    return truncate(toMrkdwn(slackCommandHints(text, this.slash)), 3_000);
  }

  /** An ephemeral message for one person in a channel or thread (a route key). */
  async whisper(channelId: string, userId: string, text: string, signal: AbortSignal): Promise<void> {
    const { channel, threadTs } = parseTarget(channelId);
    const args = { channel, user: userId, text: this.text(text), ...(threadTs ? { thread_ts: threadTs } : {}) };
    await bestEffort(this.logger, 'whisper', () => this.calls.call('chat.postEphemeral', args, undefined, signal));
  }

  /** A private answer: through the interaction's response_url, else an ephemeral message. */
  async privateReply(target: ReplyTarget, text: string, signal: AbortSignal): Promise<void> {
    const mrkdwn = this.text(text);
    if (target.responseUrl && (await postToResponseUrl(target.responseUrl, mrkdwn, this.logger, signal))) return;
    if (!target.channelId) return;
    const thread = target.threadTs ? { thread_ts: target.threadTs } : {};
    const args = { channel: target.channelId, user: target.userId, text: mrkdwn, ...thread };
    await bestEffort(this.logger, 'ephemeral reply', () =>
      this.calls.call('chat.postEphemeral', args, undefined, signal),
    );
  }
}
