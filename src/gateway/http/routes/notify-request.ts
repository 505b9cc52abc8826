/** Parses and validates a notify request body into a typed request (reference/channels.md §5.3). */
import { safeParseJson, isPlainObject } from '../../../shared/json.js';
import { HttpError } from '../http-errors.js';

export type NotifyTarget = { kind: 'username'; username: string } | { kind: 'channel'; channelType: string; channelId: string };

export interface NotifyRequest {
  target: NotifyTarget;
  /** Delivered text: `**title**\nmessage` when a title is given. */
  content: string;
  wsId: string;
}

const WS_ID = /^[0-9a-f]{8,32}$/;
const SLACK_WS_FORM =
  "slack notification targets with ws_id must use channel_id in the form 'channel:user_id' or 'channel:user_id:thread_ts'";

function trimmedString(value: unknown): string {
  return typeof value === 'string' ? value.trim() : '';
}

export function parseNotifyRequest(text: string): NotifyRequest {
  const parsed = safeParseJson(text);
  if (!parsed.ok) throw new HttpError(400, 'invalid JSON');
  const body = parsed.value;
  if (!isPlainObject(body)) throw new HttpError(400, 'request body must be a JSON object');
  const message = trimmedString(body['message']);
  const title = trimmedString(body['title']);
  const wsId = trimmedString(body['ws_id']);
  if (wsId && !WS_ID.test(wsId)) throw new HttpError(400, 'invalid ws_id format');
  const rawTarget = body['target'];
  if (!rawTarget || !message) throw new HttpError(400, 'target and message are required');
  const target = parseTarget(rawTarget, wsId);
  return { target, content: title ? `**${title}**\n${message}` : message, wsId };
}

function parseTarget(raw: unknown, wsId: string): NotifyTarget {
  if (!isPlainObject(raw)) throw new HttpError(400, 'target must have username or channel_type+channel_id');
  if ('username' in raw) {
    const username = trimmedString(raw['username']);
    if (!username) throw new HttpError(404, 'target not found or has no linked channels');
    return { kind: 'username', username };
  }
  const channelType = trimmedString(raw['channel_type']);
  const channelId = trimmedString(raw['channel_id']);
  if (!channelType || !channelId) throw new HttpError(400, 'target must have username or channel_type+channel_id');
  if (channelType === 'slack' && wsId && channelId.split(':').filter(Boolean).length < 2) {
    throw new HttpError(400, SLACK_WS_FORM);
  }
  return { kind: 'channel', channelType, channelId };
}
