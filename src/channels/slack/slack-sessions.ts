/**
 * Slack agent sessions (docs.slack.dev/ai/agent-sessions): a conversation's thread shows `processing` (with Slack's
 * native Stop button), `suspended`, `active` or `closed` through `agents.sessions.setStatus`. A workspace that refuses
 * the method (an app not declared as an agent, a missing scope, a wrong token type) is not asked again: one log line,
 * and everything else goes on working.
 */
import { LRUCache } from 'lru-cache';
import type { SessionStatus } from '../channel-adapter.js';
import { describeError } from '../../shared/errors.js';
import type { Logger } from '../../shared/logger.js';
import { parseTarget } from './slack-events.js';
import { slackPlatformError } from './slack-web.js';

/** Slack's longest session title. */
export const SLACK_SESSION_TITLE_MAX = 200;
const TITLED_THREADS = 4_096;
/** Errors about one thread (it is gone, or the bot left the channel): that thread only, the workspace still has sessions. */
const THREAD_ERRORS = new Set(['channel_not_found', 'thread_not_found', 'message_not_found', 'not_in_channel', 'is_archived', 'session_not_found']);

export type SessionCall = (method: string, args: Record<string, unknown>, signal: AbortSignal) => Promise<Record<string, unknown>>;

/** The title of a new session: the asker's first words on one line, at most 200 characters; undefined when empty. */
export function sessionTitle(text: string | undefined): string | undefined {
  const line = (text ?? '').replace(/\s+/g, ' ').trim();
  if (line === '') return undefined;
  const chars = [...line];
  return chars.length <= SLACK_SESSION_TITLE_MAX ? line : `${chars.slice(0, SLACK_SESSION_TITLE_MAX - 1).join('')}…`;
}

export class SlackSessions {
  /** The error with which the workspace refused sessions; no call is made after it. */
  private refusal: string | undefined;
  /** Threads whose session exists (its title was sent with the call that created it). A cache only. */
  private readonly created = new LRUCache<string, true>({ max: TITLED_THREADS });

  constructor(
    private readonly enabled: boolean,
    private readonly call: SessionCall,
    private readonly logger: Logger,
  ) {}

  /** `on`, `off` (slack.agent_sessions = false) or `refused (<error>)`, for status and doctor. */
  get state(): string {
    if (!this.enabled) return 'off';
    return this.refusal === undefined ? 'on' : `refused (${this.refusal})`;
  }

  /** Sets a thread's session status; never throws. Channels without a thread have no session. */
  async setStatus(channelId: string, status: SessionStatus, title: string | undefined, signal: AbortSignal): Promise<void> {
    if (!this.enabled || this.refusal !== undefined) return;
    const { channel, threadTs } = parseTarget(channelId);
    if (!threadTs) return;
    const named = this.created.has(channelId) ? undefined : sessionTitle(title);
    const args = { channel_id: channel, thread_ts: threadTs, status, ...(named === undefined ? {} : { title: named }) };
    try {
      await this.call('agents.sessions.setStatus', args, signal);
      this.created.set(channelId, true);
    } catch (error) {
      const code = slackPlatformError(error);
      if (code === undefined || THREAD_ERRORS.has(code)) {
        this.logger.debug({ status, error: describeError(error) }, 'slack session status not set');
        return;
      }
      this.refusal = code;
      this.logger.warn({ error: code }, 'slack refused agent sessions: threads show no session status in this workspace (see sandpiper doctor)');
    }
  }
}
