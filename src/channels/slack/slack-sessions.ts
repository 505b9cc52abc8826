/**
 * Slack agent sessions (docs.slack.dev/ai/agent-sessions): a conversation's thread shows `processing` (with Slack's
 * native Stop button), `suspended`, `active` or `closed` through `agents.sessions.setStatus`. A session created without
 * a title (a first message without text) gets one with `agents.sessions.rename` when a later turn brings one. A
 * workspace that refuses the method (an app not declared as an agent, a missing scope, a wrong token type) is not
 * asked again: one log line, and everything else goes on working (other workspaces keep their sessions).
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
const THREAD_ERRORS = new Set([
  'channel_not_found',
  'thread_not_found',
  'message_not_found',
  'not_in_channel',
  'is_archived',
  'session_not_found',
]);

export type SessionCall = (
  method: string,
  args: Record<string, unknown>,
  signal: AbortSignal,
) => Promise<Record<string, unknown>>;

/** The title of a new session: the asker's first words on one line, at most 200 characters; undefined when empty. */
export function sessionTitle(text: string | undefined): string | undefined {
  const line = (text ?? '').replace(/\s+/g, ' ').trim();
  if (line === '') return undefined;
  const chars = [...line];
  return chars.length <= SLACK_SESSION_TITLE_MAX ? line : `${chars.slice(0, SLACK_SESSION_TITLE_MAX - 1).join('')}…`;
}

export class SlackSessions {
  /** Workspace → the error with which it refused sessions; no call is made for it after that. */
  private readonly refusals = new Map<string, string>();
  /** Threads whose session exists → whether it has a title. A cache only. */
  private readonly created = new LRUCache<string, boolean>({ max: TITLED_THREADS });
  /** Threads → the status their session was last set to. A cache only. */
  private readonly shown = new LRUCache<string, SessionStatus>({ max: TITLED_THREADS });

  constructor(
    private readonly enabled: boolean,
    private readonly call: SessionCall,
    private readonly logger: Logger,
    /** The workspace of a channel ('' when there is one workspace). */
    private readonly teamOf: (channel: string) => string = () => '',
  ) {}

  /** `on`, `off` (slack.agent_sessions = false) or `refused (<error>)`, for status and doctor. */
  get state(): string {
    if (!this.enabled) return 'off';
    const refusal = [...this.refusals.values()][0];
    return refusal === undefined ? 'on' : `refused (${refusal})`;
  }

  /**
   * The status this thread's session was last set to, for a stream's `chat.stopStream` to keep (`session_status`:
   * Slack's default there is `active`, which would drop the Stop button mid-turn); undefined when sessions are off or
   * refused in its workspace, or the thread has none.
   */
  statusOf(channelId: string): SessionStatus | undefined {
    const team = this.teamOf(parseTarget(channelId).channel);
    return this.enabled && !this.refusals.has(team) ? this.shown.get(channelId) : undefined;
  }

  /** Sets a thread's session status; never throws. Channels without a thread have no session. */
  async setStatus(
    channelId: string,
    status: SessionStatus,
    title: string | undefined,
    signal: AbortSignal,
  ): Promise<void> {
    const { channel, threadTs } = parseTarget(channelId);
    const team = this.teamOf(channel);
    if (!this.enabled || this.refusals.has(team) || !threadTs) return;
    const titled = this.created.get(channelId);
    const named = titled === true ? undefined : sessionTitle(title);
    const thread = { channel_id: channel, thread_ts: threadTs };
    try {
      await this.call(
        'agents.sessions.setStatus',
        { ...thread, status, ...(titled === undefined && named !== undefined ? { title: named } : {}) },
        signal,
      );
      this.created.set(channelId, titled === true || named !== undefined);
      this.shown.set(channelId, status);
      if (titled === false && named !== undefined)
        await this.call('agents.sessions.rename', { ...thread, title: named }, signal);
    } catch (error) {
      const code = slackPlatformError(error);
      if (code === undefined || THREAD_ERRORS.has(code)) {
        this.logger.debug({ status, error: describeError(error) }, 'slack session status not set');
        return;
      }
      this.refusals.set(team, code);
      this.logger.warn(
        { error: code, ...(team ? { team } : {}) },
        'slack refused agent sessions: threads show no session status in this workspace (see sandpiper doctor)',
      );
    }
  }
}
