/**
 * The gateway's side of the channel features (ADR 0043): every use of an optional platform feature goes through
 * here, with the fallback where the platform has none. Ephemeral → a direct message → a post in the conversation;
 * streaming → post and edit (`streamed-message.ts`); forms → 0 fields (the form card says why); the rest do nothing.
 */
import type { AttachmentAccess, ChannelAdapter, NativeStream, PlatformUser, SessionStatus } from '../channels/channel-adapter.js';
import { ChannelError, describeError } from '../shared/errors.js';
import type { Logger } from '../shared/logger.js';

/** Who is told, where, and about which of their messages. */
export interface WhisperTarget {
  channelId: string;
  userId: string;
  /** The message the note is about. */
  replyTo: string;
}

/**
 * Tells one person something privately: the platform's ephemeral note; else a direct message; else (no DMs either) a
 * post in the conversation. Never throws: a failure is logged at warn.
 */
export async function whisper(adapter: ChannelAdapter, target: WhisperTarget, text: string, signal: AbortSignal, logger: Logger): Promise<void> {
  const { ephemeral, direct } = adapter.features;
  try {
    if (ephemeral) return await ephemeral.whisper(target.channelId, target.userId, target.replyTo, text, signal);
    const channelId = direct ? await direct.open(target.userId, signal) : target.channelId;
    await adapter.post(channelId, { kind: 'text', text }, signal);
  } catch (error) {
    logger.warn({ platform: adapter.platform, error: describeError(error) }, 'private note failed');
  }
}

/** Opens the direct-message channel with a platform user; a platform without DMs throws ChannelError. */
export function openDirect(adapter: ChannelAdapter, userId: string, signal: AbortSignal): Promise<string> {
  const direct = adapter.features.direct;
  if (!direct) return Promise.reject(new ChannelError(`${adapter.platform} cannot send direct messages`, { code: 'CONFIG_INVALID' }));
  return direct.open(userId, signal);
}

/** Whether the platform can send direct messages at all (notifications, MCP authorization links). */
export function canMessageDirectly(adapter: ChannelAdapter): boolean {
  return adapter.features.direct !== undefined;
}

/** Whether a DM is a conversation here (the platform's `dm` setting); a platform without DMs has none. */
export function directConversations(adapter: ChannelAdapter): boolean {
  return adapter.features.direct?.conversations ?? false;
}

/** The platform's native stream for answer text in `channelId`; undefined → post and edit. */
export function nativeStream(adapter: ChannelAdapter, channelId: string): NativeStream | undefined {
  return adapter.features.streaming?.open(channelId);
}

/** Most fields a form may have here; 0 when the platform shows no forms. */
export function maxFormFields(adapter: ChannelAdapter): number {
  return adapter.features.forms?.maxFields ?? 0;
}

/** How attachments may be downloaded; undefined → they are ignored (named in the skipped notice). */
export function attachmentAccess(adapter: ChannelAdapter): AttachmentAccess | undefined {
  return adapter.features.attachments?.access();
}

/** Shows a conversation's state where the platform has agent sessions; nothing elsewhere. Never throws. */
export async function sessionStatus(
  adapter: ChannelAdapter, channelId: string, status: SessionStatus, title: string | undefined, signal: AbortSignal,
): Promise<void> {
  await adapter.features.sessions?.status(channelId, status, title, signal);
}

/** Whether the person is a configured approver on the platform; false where it has none. */
export async function isPlatformApprover(adapter: ChannelAdapter, user: PlatformUser, signal: AbortSignal): Promise<boolean> {
  return (await adapter.features.approvers?.isApprover(user, signal)) === true;
}

/** Stops taking platform events for the drain where the platform can hand them to other instances; else nothing. */
export async function stopInbound(adapter: ChannelAdapter): Promise<void> {
  await adapter.features.drain?.stopInbound();
}
