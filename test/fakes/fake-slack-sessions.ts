/**
 * The fake Slack's agent sessions: `agents.sessions.setStatus` / `agents.sessions.rename` (docs.slack.dev/ai/agent-sessions),
 * strict about arguments, and a switch for a workspace that refuses them (an app not declared as an agent). Stopping a
 * stream in a thread with a session sets its status too: `chat.stopStream`'s `session_status`, by default `active`.
 */
import { randomUUID } from 'node:crypto';
import { APP_ID, BOT_USER_ID, TEAM_ID } from './fake-slack-state.js';

type Reply = Record<string, unknown>;

export const SESSION_STATUSES = new Set(['processing', 'active', 'suspended', 'closed']);
const MAX_TITLE = 200;

export interface FakeSession {
  channel: string;
  threadTs: string;
  title: string;
  /** Every status the thread showed, oldest first (a status set again while shown is not repeated). */
  statuses: string[];
}

export class FakeSlackSessions {
  /** When set, every call answers this error (`not_allowed_token_type`, `missing_scope`, `not_an_agent`…). */
  refuse: string | undefined;
  /** `<channel>:<thread_ts>` → its session. */
  readonly sessions = new Map<string, FakeSession>();
  /** Calls answered, refused ones included. */
  calls = 0;

  session(channel: string, threadTs: string): FakeSession | undefined {
    return this.sessions.get(`${channel}:${threadTs}`);
  }

  /** The reply to an `agents.sessions.*` call, or undefined when `method` is not one. */
  handle(method: string, body: Record<string, unknown>): Reply | undefined {
    if (method !== 'agents.sessions.setStatus' && method !== 'agents.sessions.rename') return undefined;
    this.calls += 1;
    if (this.refuse !== undefined) return { ok: false, error: this.refuse };
    const channel = typeof body.channel_id === 'string' ? body.channel_id : '';
    const threadTs = typeof body.thread_ts === 'string' ? body.thread_ts : '';
    if (!channel || !threadTs) return { ok: false, error: 'invalid_arguments' };
    const title = typeof body.title === 'string' ? body.title : undefined;
    if (title !== undefined && (title.length === 0 || title.length > MAX_TITLE))
      return { ok: false, error: 'invalid_title' };
    const key = `${channel}:${threadTs}`;
    if (method === 'agents.sessions.rename') {
      const existing = this.sessions.get(key);
      if (!existing || title === undefined)
        return { ok: false, error: existing ? 'invalid_arguments' : 'session_not_found' };
      existing.title = title;
      return { ok: true };
    }
    const status = String(body.status ?? '');
    if (!SESSION_STATUSES.has(status)) return { ok: false, error: 'invalid_status' };
    const session = this.sessions.get(key) ?? { channel, threadTs, title: title ?? '', statuses: [] };
    this.sessions.set(key, session);
    show(session, status);
    return { ok: true, status, title: session.title };
  }

  /** A stream in the thread was stopped with `session_status` (a valid one; Slack's default is `active`). */
  streamStopped(channel: string, threadTs: string | undefined, status: string): void {
    const session = threadTs === undefined ? undefined : this.session(channel, threadTs);
    if (session) show(session, status);
  }
}

function show(session: FakeSession, status: string): void {
  if (session.statuses.at(-1) !== status) session.statuses.push(status);
}

/** The Events API payload of a click on Slack's native Stop button of a session (`agent_session_stopped`). */
export function sessionStoppedPayload(
  userId: string,
  channel: string,
  threadTs: string,
  streamingTs: readonly string[] = [],
): Record<string, unknown> {
  const eventTs = `${Math.floor(Date.now() / 1000)}.${String(Math.floor(Math.random() * 1e6)).padStart(6, '0')}`;
  return {
    token: 'verif',
    team_id: TEAM_ID,
    api_app_id: APP_ID,
    type: 'event_callback',
    event_id: `Ev${randomUUID().slice(0, 8)}`,
    event_time: 1700000000,
    authorizations: [
      { enterprise_id: null, team_id: TEAM_ID, user_id: BOT_USER_ID, is_bot: true, is_enterprise_install: false },
    ],
    is_ext_shared_channel: false,
    event: {
      type: 'agent_session_stopped',
      channel,
      thread_ts: threadTs,
      user: userId,
      streaming_message_ts: [...streamingTs],
      event_ts: eventTs,
    },
  };
}
