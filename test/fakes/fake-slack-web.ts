/** The fake Slack's Web API methods: the replies bolt and the adapter need, applied to the fake workspace state. */
import { randomUUID } from 'node:crypto';
import type { FakeSlackMessage, FakeSlackState, FakeTeam } from './fake-slack-state.js';
import type { FakeSlackOAuth } from './fake-slack-oauth.js';
import type { FakeSlackStreams } from './fake-slack-stream.js';
import type { FakeSlackSessions } from './fake-slack-sessions.js';

export interface WebContext {
  state: FakeSlackState;
  appToken: string;
  /** The install flow (`oauth.v2.access`). */
  oauth?: FakeSlackOAuth;
  /** The Socket Mode URL handed out by apps.connections.open. */
  wsUrl: string;
  /** chat.startStream / appendStream / stopStream. */
  streams?: FakeSlackStreams;
  /** agents.sessions.setStatus / rename. */
  sessions?: FakeSlackSessions;
}

type Reply = Record<string, unknown>;

/** The JSON reply of one Web API call (always HTTP 200, as Slack does; errors are `{ok:false,error}`). */
export function handleWebApi(method: string, body: Record<string, unknown>, token: string, ctx: WebContext): Reply {
  if (method === 'apps.connections.open') {
    return token === ctx.appToken ? { ok: true, url: ctx.wsUrl } : { ok: false, error: 'invalid_auth' };
  }
  if (method === 'oauth.v2.access') return ctx.oauth?.access(body) ?? { ok: false, error: 'unknown_method' };
  const team = ctx.state.teamOfToken(token);
  if (!team) return { ok: false, error: 'invalid_auth' };
  // A workspace's token reaches only that workspace's channels.
  const channel = body.channel ?? body.channel_id;
  if (typeof channel === 'string' && channel !== '' && ctx.state.teamOfChannel(channel).id !== team.id)
    return { ok: false, error: 'channel_not_found' };
  switch (method) {
    case 'auth.test':
      return {
        ok: true,
        url: 'https://fake.slack.com/',
        team: team.name,
        user: 'sandpiper',
        team_id: team.id,
        user_id: team.botUserId,
        bot_id: team.botId,
        is_enterprise_install: false,
      };
    case 'chat.postMessage':
      return postMessage(body, ctx.state, team);
    case 'chat.update':
      return updateMessage(body, ctx.state, team);
    case 'chat.postEphemeral':
      ctx.state.ephemerals.push({
        via: `ephemeral:${String(body.channel)}:${String(body.user)}`,
        user: String(body.user ?? ''),
        text: String(body.text ?? ''),
        threadTs: typeof body.thread_ts === 'string' ? body.thread_ts : undefined,
      });
      return { ok: true, message_ts: ctx.state.nextTs() };
    case 'reactions.add':
      return addReaction(body, ctx.state);
    case 'views.open':
      return openView(body, ctx.state);
    case 'conversations.history':
      return history(body, ctx.state);
    case 'conversations.replies':
      return replies(body, ctx.state);
    case 'usergroups.users.list': {
      const users = ctx.state.userGroups.get(String(body.usergroup ?? ''));
      return users === undefined ? { ok: false, error: 'no_such_subteam' } : { ok: true, users };
    }
    case 'conversations.open':
      return { ok: true, channel: { id: `D${String(body.users ?? 'X').slice(1, 10)}` } };
    default:
      return (
        ctx.sessions?.handle(method, body) ??
        ctx.streams?.handle(method, body) ?? { ok: false, error: 'unknown_method' }
      );
  }
}

/** A message as conversations.history / replies show it; its metadata only with `include_all_metadata`, as Slack does. */
function shown(message: FakeSlackMessage, withMetadata: boolean): Reply {
  const shape: Reply = { type: 'message', user: message.user, text: message.text, ts: message.ts };
  if (message.botId) shape.bot_id = message.botId;
  if (message.threadTs) shape.thread_ts = message.threadTs;
  if (message.blocks.length > 0) shape.blocks = message.blocks;
  if (withMetadata && message.metadata) shape.metadata = message.metadata;
  return shape;
}

/** A boolean Web API argument (form-encoded calls send `true` / `1` as text). */
function flag(value: unknown): boolean {
  return value === true || value === 'true' || value === '1';
}

type Metadata = NonNullable<FakeSlackMessage['metadata']>;

/**
 * The `metadata` argument: undefined when absent, null for `{}` (chat.update's way to remove it), or Slack's error for
 * a value that is not `{event_type: string, event_payload: object}`.
 */
export function metadataArg(body: Record<string, unknown>): Metadata | null | undefined | { error: string } {
  const value = body.metadata;
  if (value === undefined) return undefined;
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return { error: 'invalid_metadata_format' };
  if (Object.keys(value).length === 0) return null;
  const { event_type: type, event_payload: payload } = value as Record<string, unknown>;
  if (
    typeof type !== 'string' ||
    type === '' ||
    typeof payload !== 'object' ||
    payload === null ||
    Array.isArray(payload)
  )
    return { error: 'invalid_metadata_schema' };
  return { event_type: type, event_payload: payload as Record<string, unknown> };
}

/** `oldest`/`latest` (exclusive unless `inclusive`), `limit` (max 999) and an opaque `cursor` (an offset here). */
function page(messages: FakeSlackMessage[], body: Record<string, unknown>, newestFirst: boolean): Reply {
  const inclusive = flag(body.inclusive);
  const oldest = Number(body.oldest ?? 0);
  const latest = body.latest === undefined ? Number.POSITIVE_INFINITY : Number(body.latest);
  const within = messages.filter((m) => {
    const ts = Number(m.ts);
    return (inclusive ? ts >= oldest : ts > oldest) && (inclusive ? ts <= latest : ts < latest);
  });
  const ordered = newestFirst ? [...within].reverse() : within;
  const limit = Math.min(Math.max(Number(body.limit ?? 100) || 100, 1), 999);
  const offset =
    typeof body.cursor === 'string' && body.cursor !== ''
      ? Number(Buffer.from(body.cursor, 'base64').toString('utf8').replace('offset:', ''))
      : 0;
  const slice = ordered.slice(offset, offset + limit);
  const more = offset + limit < ordered.length;
  return {
    ok: true,
    messages: slice.map((message) => shown(message, flag(body.include_all_metadata))),
    has_more: more,
    response_metadata: { next_cursor: more ? Buffer.from(`offset:${offset + limit}`).toString('base64') : '' },
  };
}

function history(body: Record<string, unknown>, state: FakeSlackState): Reply {
  const channel = String(body.channel ?? '');
  if (!channel) return { ok: false, error: 'channel_not_found' };
  state.historyReads += 1;
  return page(state.topLevel(channel), body, true);
}

/** The thread's parent first, then its replies oldest first (the parent is shown even when older than `oldest`). */
function replies(body: Record<string, unknown>, state: FakeSlackState): Reply {
  const channel = String(body.channel ?? '');
  const parent = state.find(channel, String(body.ts ?? ''));
  if (!parent) return { ok: false, error: 'thread_not_found' };
  state.historyReads += 1;
  const reply = page(state.thread(channel, parent.ts), body, false);
  const offset = typeof body.cursor === 'string' && body.cursor !== '';
  const head = shown(parent, flag(body.include_all_metadata));
  return offset ? reply : { ...reply, messages: [head, ...(reply.messages as Reply[])] };
}

function postMessage(body: Record<string, unknown>, state: FakeSlackState, team: FakeTeam): Reply {
  const channel = String(body.channel ?? '');
  if (!channel) return { ok: false, error: 'channel_not_found' };
  const threadTs = typeof body.thread_ts === 'string' && body.thread_ts !== '' ? body.thread_ts : undefined;
  if (threadTs && !state.find(channel, threadTs)) return { ok: false, error: 'thread_not_found' };
  const blocks = Array.isArray(body.blocks) ? (body.blocks as Record<string, unknown>[]) : [];
  const metadata = metadataArg(body);
  if (metadata !== null && metadata !== undefined && 'error' in metadata) return { ok: false, error: metadata.error };
  const message = state.addMessage({
    channel,
    user: team.botUserId,
    botId: team.botId,
    text: String(body.text ?? ''),
    threadTs,
    blocks,
  });
  if (metadata) message.metadata = metadata;
  return {
    ok: true,
    channel,
    ts: message.ts,
    message: { type: 'message', text: message.text, user: team.botUserId, bot_id: team.botId, ts: message.ts },
  };
}

function updateMessage(body: Record<string, unknown>, state: FakeSlackState, team: FakeTeam): Reply {
  const message = state.find(String(body.channel ?? ''), String(body.ts ?? ''));
  if (!message) return { ok: false, error: 'message_not_found' };
  if (message.botId !== team.botId) return { ok: false, error: 'cant_update_message' };
  const metadata = metadataArg(body);
  if (metadata !== null && metadata !== undefined && 'error' in metadata) return { ok: false, error: metadata.error };
  // Slack keeps a message's metadata when an update leaves it out, and removes it for `{}`.
  if (metadata !== undefined) message.metadata = metadata ?? undefined;
  if (body.text !== undefined) message.text = String(body.text);
  if (Array.isArray(body.blocks)) message.blocks = body.blocks as Record<string, unknown>[];
  message.history.push(message.text);
  return { ok: true, channel: message.channel, ts: message.ts, text: message.text };
}

function addReaction(body: Record<string, unknown>, state: FakeSlackState): Reply {
  const message = state.find(String(body.channel ?? ''), String(body.timestamp ?? ''));
  if (!message) return { ok: false, error: 'message_not_found' };
  message.reactions.push(String(body.name ?? ''));
  return { ok: true };
}

function openView(body: Record<string, unknown>, state: FakeSlackState): Reply {
  const triggerId = String(body.trigger_id ?? '');
  const trigger = state.triggers.get(triggerId);
  if (!trigger || trigger.used) return { ok: false, error: 'expired_trigger_id' };
  trigger.used = true;
  const view = typeof body.view === 'object' && body.view !== null ? (body.view as Record<string, unknown>) : {};
  const problems = viewProblems(view);
  if (problems.length > 0) return { ok: false, error: 'invalid_arguments', response_metadata: { messages: problems } };
  const id = `V${randomUUID().slice(0, 8).toUpperCase()}`;
  state.views.push({ id, triggerId, view });
  return { ok: true, view: { ...view, id } };
}

/** Some of the limits Slack enforces on a modal view (real Slack refuses the call with `invalid_arguments`). */
function viewProblems(view: Record<string, unknown>): string[] {
  const problems: string[] = [];
  const text = (value: unknown): string => String((value as { text?: unknown } | undefined)?.text ?? '');
  const check = (ok: boolean, what: string): void => void (ok || problems.push(`[ERROR] ${what}`));
  check(view.type === 'modal', 'view type must be modal');
  check(text(view.title).length > 0 && text(view.title).length <= 24, 'title must be 1-24 characters');
  check(text(view.submit).length <= 24 && text(view.close).length <= 24, 'submit/close must be at most 24 characters');
  check(String(view.private_metadata ?? '').length <= 3000, 'private_metadata must be at most 3000 characters');
  const blocks = Array.isArray(view.blocks) ? (view.blocks as Record<string, unknown>[]) : [];
  check(blocks.length >= 1 && blocks.length <= 100, 'a view holds 1-100 blocks');
  check(new Set(blocks.map((b) => b.block_id)).size === blocks.length, 'block ids must be unique');
  for (const block of blocks.filter((b) => b.type === 'input')) {
    const element = (block.element ?? {}) as Record<string, unknown>;
    check(text(block.label).length > 0 && text(block.label).length <= 2000, 'input label must be 1-2000 characters');
    check(text(element.placeholder).length <= 150, 'placeholder must be at most 150 characters');
    if (element.type === 'plain_text_input') {
      const max = typeof element.max_length === 'number' ? element.max_length : 3000;
      check(max >= 1 && max <= 3000, 'max_length must be 1-3000');
      check(String(element.initial_value ?? '').length <= max, 'initial_value longer than max_length');
    } else {
      check(
        element.type === 'static_select' && Array.isArray(element.options) && element.options.length <= 100,
        'unsupported input element',
      );
    }
  }
  return problems;
}
