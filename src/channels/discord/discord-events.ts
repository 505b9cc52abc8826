/** Raw discord.js messages → the port's inbound message events (bots, guild and channel allow-lists filtered). */
import type { Message } from 'discord.js';
import type { InboundAttachment, InboundEvent } from '../channel-adapter.js';

export interface DiscordScope {
  botId: string;
  /** Only this guild when set. */
  guildId: string | undefined;
  /** Allowed parent channels; empty = all. */
  channelIds: ReadonlySet<string>;
}

/** Whether a guild channel (or a thread's parent) is inside the configured allow-lists. */
export function isAllowed(scope: DiscordScope, guildId: string | null, parentChannelId: string | null): boolean {
  if (scope.guildId !== undefined && guildId !== scope.guildId) return false;
  if (scope.channelIds.size === 0) return true;
  return parentChannelId !== null && scope.channelIds.has(parentChannelId);
}

/** The mention pattern of each bot id seen (one bot per adapter, so this holds one or a few entries). */
const mentionPatterns = new Map<string, RegExp>();

/** Removes `<@bot>` / `<@!bot>` mentions of the bot and trims (the pattern is compiled once per bot id). */
export function stripBotMention(content: string, botId: string): string {
  let pattern = mentionPatterns.get(botId);
  if (pattern === undefined) {
    pattern = new RegExp(`<@!?${botId.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}>`, 'g');
    mentionPatterns.set(botId, pattern);
  }
  return content.replace(pattern, '').trim();
}

/** The message's attachments as the port describes them (downloads happen in the gateway). */
export function attachmentsOf(message: Pick<Message, 'attachments'>): InboundAttachment[] {
  return [...message.attachments.values()].map((attachment) => ({
    name: attachment.name,
    url: attachment.url,
    size: attachment.size,
    contentType: attachment.contentType ?? undefined,
  }));
}

/** The inbound event for a message, or undefined when the gateway must never see it. */
export function toInboundMessage(
  message: Message,
  scope: DiscordScope,
): Extract<InboundEvent, { type: 'message' }> | undefined {
  if (message.author.bot || message.author.id === scope.botId || message.system) return undefined;
  const user = { id: message.author.id, name: message.author.globalName ?? message.author.username };
  if (!message.inGuild()) {
    // A message that replies to one of ours (a notification, an answer) names it: the gateway routes by it.
    const replyTo = message.reference?.messageId ?? undefined;
    const conversation = { kind: 'direct', channelId: message.channelId } as const;
    return {
      type: 'message',
      user,
      conversation,
      messageId: message.id,
      text: message.content.trim(),
      mentioned: true,
      replyTo,
      attachments: attachmentsOf(message),
    };
  }
  const channel = message.channel;
  const thread = channel.isThread();
  const parentId = thread ? channel.parentId : channel.id;
  if (!isAllowed(scope, message.guildId, parentId)) return undefined;
  const mentioned = message.mentions.users.has(scope.botId);
  return {
    type: 'message',
    user,
    conversation: { kind: thread ? 'thread' : 'channel', channelId: message.channelId },
    messageId: message.id,
    text: stripBotMention(message.content, scope.botId),
    mentioned,
    attachments: attachmentsOf(message),
    replyTo: message.reference?.messageId ?? undefined,
  };
}
