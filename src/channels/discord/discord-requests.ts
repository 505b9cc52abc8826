/** The Discord adapter's REST requests: messages posted and edited, replies, typing, reactions, threads, DM channels. */
import { ChannelType, Routes, type APIChannel, type APIMessage, type Client } from 'discord.js';
import type { OutboundMessage, ReactionCode, ThreadOrigin } from '../channel-adapter.js';
import { toChannelError } from '../channel-errors.js';
import { withLinkedSignal } from '../../shared/abort.js';
import { renderMessage } from './discord-format.js';

const AUTO_ARCHIVE_MINUTES = 1440;
const REACTIONS: Record<ReactionCode, string> = { queued: '⏳', refused: '🚫' };
/** Discord's error code for a thread started from a message that already has one. */
const THREAD_ALREADY_CREATED = 160004;

/**
 * Each request runs on a signal of its own (`withRequestSignal`). Posts, edits, threads and DM channels throw a
 * ChannelError; the rest throw what discord.js threw, for the adapter's best-effort calls.
 */
export class DiscordRequests {
  /** `client.rest` is read at each request: the adapter's client, which speaks REST in every mode. */
  constructor(private readonly client: Client) {}

  async post(channelId: string, message: OutboundMessage, signal: AbortSignal): Promise<string> {
    try {
      const sent = (await withRequestSignal(signal, (own) =>
        this.client.rest.post(Routes.channelMessages(channelId), { body: renderMessage(message), signal: own }),
      )) as APIMessage;
      return sent.id;
    } catch (error) {
      throw toChannelError('discord post', error);
    }
  }

  async edit(channelId: string, messageId: string, message: OutboundMessage, signal: AbortSignal): Promise<void> {
    const body = renderMessage(message);
    try {
      const { nonce: _nonce, enforce_nonce: _enforce, ...editable } = body;
      const patch = { body: { ...editable, components: body.components ?? [] } };
      await withRequestSignal(signal, (own) =>
        this.client.rest.patch(Routes.channelMessage(channelId, messageId), { ...patch, signal: own }),
      );
    } catch (error) {
      throw toChannelError('discord edit', error);
    }
  }

  /** A short reply to the message `replyTo` (it pings nobody). */
  reply(channelId: string, replyTo: string, text: string, signal: AbortSignal): Promise<unknown> {
    const body = {
      ...renderMessage({ kind: 'text', text }),
      message_reference: { message_id: replyTo, fail_if_not_exists: false },
    };
    return withRequestSignal(signal, (own) =>
      this.client.rest.post(Routes.channelMessages(channelId), { body, signal: own }),
    );
  }

  typing(channelId: string, signal: AbortSignal): Promise<unknown> {
    return withRequestSignal(signal, (own) => this.client.rest.post(Routes.channelTyping(channelId), { signal: own }));
  }

  react(channelId: string, messageId: string, reaction: ReactionCode, signal: AbortSignal): Promise<unknown> {
    const route = Routes.channelMessageOwnReaction(channelId, messageId, encodeURIComponent(REACTIONS[reaction]));
    return withRequestSignal(signal, (own) => this.client.rest.put(route, { signal: own }));
  }

  async startThread(channelId: string, name: string, origin: ThreadOrigin, signal: AbortSignal): Promise<string> {
    const fromMessageId = origin.fromMessageId;
    const threadName = name.trim().slice(0, 100) || 'Sandpiper';
    const body = fromMessageId
      ? { name: threadName, auto_archive_duration: AUTO_ARCHIVE_MINUTES }
      : { name: threadName, auto_archive_duration: AUTO_ARCHIVE_MINUTES, type: ChannelType.PublicThread };
    try {
      const thread = (await withRequestSignal(signal, (own) =>
        this.client.rest.post(Routes.threads(channelId, fromMessageId), { body, signal: own }),
      )) as APIChannel;
      return thread.id;
    } catch (error) {
      // The message has its thread already (a message handled again after a restart): a message's thread has its id.
      if (fromMessageId !== undefined && (error as { code?: unknown }).code === THREAD_ALREADY_CREATED)
        return fromMessageId;
      throw toChannelError('discord start thread', error);
    }
  }

  archiveThread(threadId: string, signal: AbortSignal): Promise<unknown> {
    return withRequestSignal(signal, (own) =>
      this.client.rest.patch(Routes.channel(threadId), { body: { archived: true }, signal: own }),
    );
  }

  async openDirect(userId: string, signal: AbortSignal): Promise<string> {
    try {
      const channel = (await withRequestSignal(signal, (own) =>
        this.client.rest.post(Routes.userChannels(), { body: { recipient_id: userId }, signal: own }),
      )) as APIChannel;
      return channel.id;
    } catch (error) {
      throw toChannelError('discord open direct message', error);
    }
  }
}

/**
 * Runs a REST call on a signal of its own, linked to the caller's. discord.js adds an abort listener to the signal it
 * is given and never removes it; the callers' signals live as long as the gateway, so passing them directly would
 * keep one listener (and its request) alive per call. A renderer's segment signal (`scopedSignal`) is passed as it is.
 */
export function withRequestSignal<T>(signal: AbortSignal, call: (own: AbortSignal) => Promise<T>): Promise<T> {
  return withLinkedSignal(signal, call);
}
