/** Raw Slack message events → the port's inbound message events, and the `<channel>:<thread_ts>` route keys. */
import { LRUCache } from 'lru-cache';
import type { Conversation, InboundAttachment, InboundEvent } from '../channel-adapter.js';
import { fromSlackText, mentionsUser } from './slack-format.js';

export interface SlackScope {
  /** The bot's user id (`U…`) from auth.test. */
  botUserId: string;
  /** The bot's bot id (`B…`) from auth.test. */
  botId: string;
  /** Allowed channels; empty = all. DMs are not subject to it. */
  channelIds: ReadonlySet<string>;
}

/** A Slack place: a channel, or a thread in it when `threadTs` is set. */
export interface SlackTarget {
  channel: string;
  threadTs: string | undefined;
}

/** Splits a route key `<channel>:<thread_ts>` (or a bare channel id) into its parts. */
export function parseTarget(id: string): SlackTarget {
  const colon = id.indexOf(':');
  if (colon === -1) return { channel: id, threadTs: undefined };
  const threadTs = id.slice(colon + 1);
  return { channel: id.slice(0, colon), threadTs: threadTs === '' ? undefined : threadTs };
}

/** The route key of a thread: `<channel>:<thread_ts>`. */
export function threadKey(channel: string, threadTs: string): string {
  return `${channel}:${threadTs}`;
}

/** The fields of a Slack `message` / `app_mention` event we read. */
export interface RawMessageEvent {
  type?: string;
  subtype?: string;
  channel?: string;
  channel_type?: string;
  user?: string;
  bot_id?: string;
  text?: string;
  ts?: string;
  thread_ts?: string;
  /** Files shared with the message (`file_share` subtype, or a mention with files). */
  files?: RawSlackFile[];
}

/** The fields of a Slack file object we read. */
export interface RawSlackFile {
  name?: string;
  title?: string;
  mimetype?: string;
  size?: number;
  url_private?: string;
  url_private_download?: string;
}

/** Subtypes that are still a person's message; every other subtype (edits, joins, deletions…) is not. */
const USER_SUBTYPES = new Set(['file_share']);

/** A message's files as the port describes them (downloads happen in the gateway, with the bot token). */
export function attachmentsOf(files: readonly RawSlackFile[] | undefined): InboundAttachment[] {
  return (files ?? []).map((file) => ({
    name: file.name ?? file.title ?? 'file',
    // Hidden or tombstoned files carry no URL: the gateway says so instead of dropping them silently.
    url: file.url_private_download ?? file.url_private ?? '',
    size: typeof file.size === 'number' ? file.size : undefined,
    contentType: file.mimetype,
  }));
}

type MessageEvent = Extract<InboundEvent, { type: 'message' }>;

export function isAllowedChannel(scope: SlackScope, channel: string): boolean {
  return scope.channelIds.size === 0 || scope.channelIds.has(channel);
}

/** Whether a Slack channel id is a direct message (`D…`), or the event says so. */
export function isDirect(channel: string, channelType?: string): boolean {
  return channelType === 'im' || channel.startsWith('D');
}

/**
 * The inbound event for a message, or undefined when the gateway must never see it: bots (including this bot),
 * message subtypes other than `file_share` (edits, joins, deletions…), events without a user or channel, and channels
 * outside the allow-list.
 */
export function toInboundMessage(event: RawMessageEvent, scope: SlackScope): MessageEvent | undefined {
  const { channel, user, ts } = event;
  if ((event.subtype !== undefined && !USER_SUBTYPES.has(event.subtype)) || event.bot_id !== undefined)
    return undefined;
  if (!channel || !user || !ts || user === scope.botUserId) return undefined;
  const conversation = conversationOf(event, channel, ts, scope);
  if (!conversation) return undefined;
  const raw = event.text ?? '';
  return {
    type: 'message',
    user: { id: user, name: user },
    conversation,
    messageId: ts,
    text: fromSlackText(raw, scope.botUserId),
    mentioned: conversation.kind === 'direct' || event.type === 'app_mention' || mentionsUser(raw, scope.botUserId),
    attachments: attachmentsOf(event.files),
    // A message in a thread answers the thread's root (a notification reply is found by it).
    replyTo: event.thread_ts !== undefined && event.thread_ts !== ts ? event.thread_ts : undefined,
  };
}

/** Where a message was written: a DM (any channel), else a thread or channel on the allow-list; undefined otherwise. */
function conversationOf(
  event: RawMessageEvent,
  channel: string,
  ts: string,
  scope: SlackScope,
): Conversation | undefined {
  const threadTs = event.thread_ts !== undefined && event.thread_ts !== ts ? event.thread_ts : undefined;
  if (isDirect(channel, event.channel_type))
    return { kind: 'direct', channelId: threadTs ? threadKey(channel, threadTs) : channel };
  if (!isAllowedChannel(scope, channel)) return undefined;
  return threadTs
    ? { kind: 'thread', channelId: threadKey(channel, threadTs) }
    : { kind: 'channel', channelId: channel };
}

/** Remembers recently seen keys (bounded), to drop the `app_mention` twin of a `message` event. */
export class RecentKeys {
  private readonly keys: LRUCache<string, true>;
  constructor(capacity = 1_000) {
    this.keys = new LRUCache({ max: capacity });
  }

  /** True the first time `key` is seen (within the last `capacity` keys). */
  firstTime(key: string): boolean {
    if (this.keys.has(key)) return false;
    this.keys.set(key, true);
    return true;
  }
}
