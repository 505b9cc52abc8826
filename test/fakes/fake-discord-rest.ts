/** REST routes of the fake Discord: messages, threads, typing, reactions, interaction callbacks, commands. */
import type { FakeDiscordState } from './fake-discord-state.js';

export interface RestReply {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
}

const unknown = (what: string): RestReply => ({ status: 404, body: { message: `Unknown ${what}`, code: 10003 } });

export interface RestRequest {
  method: string;
  /** Without the `/api/v10` prefix and the query. */
  path: string;
  body: unknown;
  query: URLSearchParams;
}

/** Answers one REST request. */
export function routeRest(
  state: FakeDiscordState,
  request: RestRequest,
  gateway: { url: string; shards: number },
): RestReply {
  const gatewayUrl = gateway.url;
  const { method, path, body } = request;
  const parts = path.split('/').filter(Boolean);
  const data = (body ?? {}) as Record<string, unknown>;
  if (method === 'GET' && path === '/gateway/bot') {
    return {
      status: 200,
      body: {
        url: gatewayUrl,
        shards: gateway.shards,
        session_start_limit: { total: 1000, remaining: 999, reset_after: 14_400_000, max_concurrency: 1 },
      },
    };
  }
  if (method === 'GET' && path === '/gateway') return { status: 200, body: { url: gatewayUrl } };
  if (method === 'GET' && path === '/users/@me') return { status: 200, body: state.bot };
  if (method === 'POST' && path === '/users/@me/channels') {
    if (typeof data.recipient_id !== 'string')
      return { status: 400, body: { message: 'Invalid Form Body', code: 50035 } };
    return { status: 200, body: state.channelPayload(state.openDm(data.recipient_id)) };
  }
  if (parts[0] === 'channels' && method === 'GET') return channelRead(state, parts, request.query);
  if (parts[0] === 'channels') return channelRoute(state, method, parts, data);
  if (parts[0] === 'interactions' && method === 'POST') return interactionCallback(state, parts[1] ?? '', data);
  if (parts[0] === 'webhooks') return webhookRoute(state, method, parts, data);
  if (parts[0] === 'applications' && method === 'PUT' && parts.at(-1) === 'commands') {
    state.commands = (Array.isArray(body) ? body : []).map((command: Record<string, unknown>) => ({
      ...command,
      id: state.snowflake(),
      application_id: state.applicationId,
    }));
    return { status: 200, body: state.commands };
  }
  return { status: 404, body: { message: '404: Not Found', code: 0 } };
}

/** GET /channels/{id}, /channels/{id}/messages (history: `after`/`before`, `limit`) and /channels/{id}/messages/{id}. */
function channelRead(state: FakeDiscordState, parts: string[], query: URLSearchParams): RestReply {
  const [, channelId = '', sub, messageId, extra] = parts;
  const channel = state.channels.get(channelId);
  if (!channel) return unknown('Channel');
  if (sub === undefined) return { status: 200, body: state.channelPayload(channel) };
  if (sub !== 'messages' || extra !== undefined) return { status: 404, body: { message: '404: Not Found', code: 0 } };
  if (messageId !== undefined) {
    const message = state.messages.get(messageId);
    return message && message.channel_id === channelId
      ? { status: 200, body: state.messagePayload(message) }
      : unknown('Message');
  }
  const limit = Number(query.get('limit') ?? '50');
  return {
    status: 200,
    body: state
      .history(channelId, { after: query.get('after') ?? undefined, before: query.get('before') ?? undefined, limit })
      .map((m) => state.messagePayload(m)),
  };
}

function channelRoute(
  state: FakeDiscordState,
  method: string,
  parts: string[],
  data: Record<string, unknown>,
): RestReply {
  const [, channelId = '', sub, messageId, action] = parts;
  const channel = state.channels.get(channelId);
  if (!channel) return unknown('Channel');
  if (sub === undefined && method === 'PATCH') {
    if (typeof data.archived === 'boolean') channel.archived = data.archived;
    return { status: 200, body: state.channelPayload(channel) };
  }
  if (sub === 'typing' && method === 'POST') return { status: 204 };
  if (sub === 'threads' && method === 'POST') {
    return { status: 201, body: state.channelPayload(state.createThread(channelId, String(data.name ?? 'thread'))) };
  }
  if (sub !== 'messages') return { status: 404, body: { message: '404: Not Found', code: 0 } };
  if (messageId === undefined && method === 'POST') {
    if (channel.archived) return { status: 400, body: { message: 'Thread is archived', code: 50083 } };
    const blank =
      (typeof data.content !== 'string' || data.content.trim() === '') &&
      !(Array.isArray(data.embeds) && data.embeds.length > 0);
    if (blank) return { status: 400, body: { message: 'Cannot send an empty message', code: 50006 } };
    return { status: 200, body: state.messagePayload(state.createMessage(channelId, state.bot, data)) };
  }
  const message = messageId === undefined ? undefined : state.messages.get(messageId);
  if (!message || message.channel_id !== channelId) return unknown('Message');
  if (action === 'threads' && method === 'POST') {
    if (state.channels.has(message.id))
      return { status: 400, body: { message: 'A thread has already been created for this message', code: 160004 } };
    return {
      status: 201,
      body: state.channelPayload(state.createThread(channelId, String(data.name ?? 'thread'), message.id)),
    };
  }
  if (action === 'reactions' && method === 'PUT') {
    message.reactions.push(parts[5] ?? '');
    return { status: 204 };
  }
  if (action === undefined && method === 'PATCH') {
    if (message.author.id !== state.bot.id)
      return { status: 403, body: { message: 'Cannot edit a message authored by another user', code: 50005 } };
    if (typeof data.content === 'string') message.content = data.content;
    if (Array.isArray(data.embeds)) message.embeds = data.embeds as Record<string, unknown>[];
    if (Array.isArray(data.components)) message.components = data.components as Record<string, unknown>[];
    message.history.push(message.content);
    message.edits += 1;
    message.editedAt = Date.now();
    return { status: 200, body: state.messagePayload(message) };
  }
  return { status: 404, body: { message: '404: Not Found', code: 0 } };
}

function interactionCallback(state: FakeDiscordState, interactionId: string, data: Record<string, unknown>): RestReply {
  const interaction = state.interactions.get(interactionId);
  if (!interaction) return unknown('Interaction');
  if (interaction.callbacks.length > 0) {
    interaction.refusedCallbacks = (interaction.refusedCallbacks ?? 0) + 1;
    return { status: 400, body: { message: 'Interaction has already been acknowledged.', code: 40060 } };
  }
  const type = Number(data.type);
  const payload = (data.data ?? {}) as Record<string, unknown>;
  interaction.callbacks.push(type);
  interaction.ackAt = Date.now();
  interaction.ephemeral = (Number(payload.flags ?? 0) & 64) === 64;
  if (type === 9) interaction.modal = payload;
  if (type === 4 && typeof payload.content === 'string') interaction.reply = payload.content;
  if (type === 8)
    interaction.choices = Array.isArray(payload.choices) ? (payload.choices as { name: string; value: unknown }[]) : [];
  return { status: 204 };
}

function webhookRoute(
  state: FakeDiscordState,
  method: string,
  parts: string[],
  data: Record<string, unknown>,
): RestReply {
  const token = parts[2] ?? '';
  const interaction = [...state.interactions.values()].find((candidate) => candidate.token === token);
  if (!interaction) return unknown('Webhook');
  if (typeof data.content === 'string') interaction.reply = data.content;
  const reply = {
    id: state.snowflake(),
    channel_id: '0',
    author: state.bot,
    content: interaction.reply ?? '',
    timestamp: new Date().toISOString(),
    edited_timestamp: null,
    tts: false,
    mention_everyone: false,
    mentions: [],
    mention_roles: [],
    attachments: [],
    embeds: [],
    components: [],
    pinned: false,
    type: 0,
    flags: 64,
  };
  return method === 'PATCH' || method === 'POST' ? { status: 200, body: reply } : unknown('Webhook');
}
