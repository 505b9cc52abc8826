/**
 * The owner of a thread and the person speaking in it are tracked separately: the owner's words reach the model as
 * they are; anyone else's (a linked participant in a shared thread, the recipient answering a notification) reach it
 * fenced as data naming the speaker, so their text cannot pose as the owner's instructions.
 */
import type { PlatformUser } from '../channels/channel-adapter.js';
import { fenceUntrusted } from '../shared/untrusted-fence.js';

/** The text to send for `speaker` in a workstream owned by `ownerUserId` (`speaker` undefined: an unknown writer). */
export function speakerText(
  ownerUserId: string,
  speaker: { userId: string; username: string } | undefined,
  writer: PlatformUser,
  text: string,
  source: 'message' | 'notification_reply',
): string {
  if (speaker !== undefined && speaker.userId === ownerUserId) return text;
  return fenceUntrusted(
    { source, attributes: { from: speaker?.username ?? writer.name, platform_user: writer.id } },
    text,
  );
}
