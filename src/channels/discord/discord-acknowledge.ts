/** Acknowledging Discord interactions within the 3 s window: a private defer at once, or a modal/reply decided later. */
import {
  MessageFlags,
  type ButtonInteraction,
  type ChatInputCommandInteraction,
  type ModalSubmitInteraction,
} from 'discord.js';
import type { Responder } from '../channel-adapter.js';
import { describeError } from '../../shared/errors.js';
import type { Logger } from '../../shared/logger.js';

/** Discord drops interactions not acknowledged within 3 s; past this the adapter defers privately by itself. */
const ACK_DEADLINE_MS = 2_000;
const NO_MENTIONS = { parse: [] as never[] };

type Repliable = ChatInputCommandInteraction | ButtonInteraction | ModalSubmitInteraction;

/** A click whose first answer is decided by the gateway: a modal, or a private reply. */
export interface ModalOrReplyClick extends Responder {
  /** Opens `modal` when the click is still unanswered; false when it was answered (or deferred) already. */
  openModal(modal: Record<string, unknown>): Promise<boolean>;
}

/**
 * Leaves a button click unacknowledged so the first answer can be a modal or a private reply; when nobody answers
 * within the deadline, a private defer is sent instead (later replies then edit it). `label` names it in logs.
 */
export function modalOrReplyClick(interaction: ButtonInteraction, logger: Logger, label: string): ModalOrReplyClick {
  let acked: Promise<boolean> | undefined;
  const ackWith = (what: string, call: () => Promise<unknown>): Promise<boolean> => {
    acked ??= call().then(
      () => true,
      (error: unknown) => {
        logger.warn({ what, error: describeError(error) }, `${label} acknowledgement failed`);
        return false;
      },
    );
    return acked;
  };
  // Purpose: timeout (Discord's 3 s acknowledgement deadline: defer if the answer is not ready).
  const timer = setTimeout(
    () => void ackWith('defer', () => interaction.deferReply({ flags: MessageFlags.Ephemeral })),
    ACK_DEADLINE_MS,
  );
  timer.unref();
  return {
    openModal: async (modal) => {
      clearTimeout(timer);
      if (acked) return false;
      return ackWith('modal', () => interaction.showModal(modal as never));
    },
    reply: async (text) => {
      clearTimeout(timer);
      if (!acked) {
        await ackWith('reply', () =>
          interaction.reply({ content: text, flags: MessageFlags.Ephemeral, allowedMentions: NO_MENTIONS }),
        );
        return;
      }
      if (await acked) await editReply(interaction, text, logger, label);
    },
  };
}

/** Defers privately at once and returns a responder that edits the deferred reply; undefined when the defer failed. */
export async function deferPrivately(
  interaction: Repliable,
  logger: Logger,
  label: string,
): Promise<Responder | undefined> {
  try {
    await interaction.deferReply({ flags: MessageFlags.Ephemeral });
  } catch (error) {
    logger.warn({ error: describeError(error) }, `${label} acknowledgement failed`);
    return undefined;
  }
  return { reply: (text) => editReply(interaction, text, logger, label) };
}

async function editReply(interaction: Repliable, text: string, logger: Logger, label: string): Promise<void> {
  try {
    await interaction.editReply({ content: text, allowedMentions: NO_MENTIONS });
  } catch (error) {
    logger.warn({ error: describeError(error) }, `${label} reply failed`);
  }
}
