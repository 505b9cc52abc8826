/** Parses and validates a notify request body into a typed request. */
import { safeParseJson, isPlainObject } from '../../../shared/json.js';
import { HttpError } from '../http-errors.js';

export type NotifyTarget =
  { kind: 'username'; username: string } | { kind: 'channel'; channelType: string; channelId: string };

export interface NotifyRequest {
  target: NotifyTarget;
  /** Delivered text: `**title**\nmessage` when a title is given. */
  content: string;
  wsId: string;
}

const WS_ID = /^[0-9a-f]{8,32}$/;

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
  const target = parseTarget(rawTarget);
  return { target, content: title ? `**${title}**\n${message}` : message, wsId };
}

/**
 * A channel target is a channel (or thread) id on its platform, with or without `ws_id` (reference defect §9.1 #7:
 * Slack no longer insists on a `channel:user` form); a reply to a channel notification is taken from the workstream's
 * owner only.
 */
function parseTarget(raw: unknown): NotifyTarget {
  if (!isPlainObject(raw)) throw new HttpError(400, 'target must have username or channel_type+channel_id');
  if ('username' in raw) {
    const username = trimmedString(raw['username']);
    if (!username) throw new HttpError(404, 'target not found or has no linked channels');
    return { kind: 'username', username };
  }
  const channelType = trimmedString(raw['channel_type']);
  const channelId = trimmedString(raw['channel_id']);
  if (!channelType || !channelId) throw new HttpError(400, 'target must have username or channel_type+channel_id');
  return { kind: 'channel', channelType, channelId };
}
