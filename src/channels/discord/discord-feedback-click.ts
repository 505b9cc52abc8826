/** Reject / Request-changes clicks: the gateway checks the clicker first, then the modal opens or a private refusal is sent, within 3 s. */
import { MessageFlags, type ButtonInteraction } from 'discord.js';
import type { Responder } from '../channel-adapter.js';
import { describeError } from '../../shared/errors.js';
import type { Logger } from '../../shared/logger.js';

/** Discord drops interactions not acknowledged within 3 s; past this the adapter defers privately by itself. */
const ACK_DEADLINE_MS = 2_000;
const NO_MENTIONS = { parse: [] as never[] };

/** The first answer acknowledges the click: the feedback modal, or a private reply; a late gateway gets a private defer. */
export function feedbackClick(
  interaction: ButtonInteraction,
  modal: Record<string, unknown>,
  logger: Logger,
): { respond: Responder; openFeedback: () => Promise<boolean> } {
  let acked: Promise<boolean> | undefined;
  const ackWith = (what: string, call: () => Promise<unknown>): Promise<boolean> => {
    acked ??= call().then(
      () => true,
      (error: unknown) => {
        logger.warn({ what, error: describeError(error) }, 'feedback click acknowledgement failed');
        return false;
      },
    );
    return acked;
  };
  const timer = setTimeout(() => void ackWith('defer', () => interaction.deferReply({ flags: MessageFlags.Ephemeral })), ACK_DEADLINE_MS);
  timer.unref();
  return {
    openFeedback: async () => {
      clearTimeout(timer);
      if (acked) return false;
      return ackWith('modal', () => interaction.showModal(modal as never));
    },
    respond: {
      reply: async (text) => {
        clearTimeout(timer);
        if (!acked) {
          await ackWith('reply', () => interaction.reply({ content: text, flags: MessageFlags.Ephemeral, allowedMentions: NO_MENTIONS }));
          return;
        }
        if (!(await acked)) return;
        try {
          await interaction.editReply({ content: text, allowedMentions: NO_MENTIONS });
        } catch (error) {
          logger.warn({ error: describeError(error) }, 'feedback click reply failed');
        }
      },
    },
  };
}
