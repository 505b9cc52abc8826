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

/** Removes `<@bot>` / `<@!bot>` mentions of the bot and trims. */
export function stripBotMention(content: string, botId: string): string {
  return content.replace(new RegExp(`<@!?${botId}>`, 'g'), '').trim();
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
export function toInboundMessage(message: Message, scope: DiscordScope): Extract<InboundEvent, { type: 'message' }> | undefined {
  if (message.author.bot || message.author.id === scope.botId || message.system) return undefined;
  const user = { id: message.author.id, name: message.author.globalName ?? message.author.username };
  if (!message.inGuild()) {
    const direct = { kind: 'direct', channelId: message.channelId } as const;
    return { type: 'message', user, conversation: direct, messageId: message.id, text: message.content.trim(), mentioned: true, attachments: attachmentsOf(message) };
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
  };
}
