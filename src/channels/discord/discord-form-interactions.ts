/** Discord clicks and submissions on form cards → `form` inbound events, each acknowledged within Discord's 3 s window. */
import { ComponentType, MessageFlags, type ButtonInteraction, type ModalSubmitInteraction } from 'discord.js';
import type { FormResponder, InboundEvent } from '../channel-adapter.js';
import { describeError } from '../../shared/errors.js';
import type { Logger } from '../../shared/logger.js';
import { formModal, parseFormCustomId } from './discord-forms.js';

/** Discord drops interactions not acknowledged within 3 s; past this the adapter defers by itself. */
const OPEN_ACK_DEADLINE_MS = 2_000;
const NO_MENTIONS = { parse: [] as never[] };

type Deliver = (event: InboundEvent) => void;

/** Handles a form button or modal; false when the interaction is not about a form. */
export async function handleFormInteraction(
  interaction: ButtonInteraction | ModalSubmitInteraction,
  deliver: Deliver,
  logger: Logger,
): Promise<boolean> {
  const parsed = parseFormCustomId(interaction.customId);
  if (!parsed) return false;
  const user = { id: interaction.user.id, name: interaction.user.globalName ?? interaction.user.username };
  const base = { type: 'form', formId: parsed.formId, user } as const;
  if (parsed.action === 'form-answer' && interaction.isButton()) {
    // Not acknowledged yet: the gateway decides between opening the modal and a private refusal.
    deliver({ ...base, action: 'open', values: {}, respond: openResponder(interaction, logger) });
    return true;
  }
  const respond = await deferPrivately(interaction, logger);
  if (!respond) return true;
  if (parsed.action === 'form-decline') deliver({ ...base, action: 'decline', values: {}, respond });
  if (parsed.action === 'form-submit' && interaction.isModalSubmit()) deliver({ ...base, action: 'submit', values: submittedValues(interaction), respond });
  return true;
}

/** Text of every text input in a submitted modal, by custom_id (our field ids). */
function submittedValues(interaction: ModalSubmitInteraction): Record<string, string> {
  const values: Record<string, string> = {};
  for (const [id, field] of interaction.fields.fields) {
    if (field.type === ComponentType.TextInput) values[id] = field.value;
  }
  return values;
}

/** The first answer acknowledges: a modal or a private reply; after the deadline a private defer is sent instead. */
function openResponder(interaction: ButtonInteraction, logger: Logger): FormResponder {
  let acked: Promise<boolean> | undefined;
  const ackWith = (what: string, call: () => Promise<unknown>): Promise<boolean> => {
    acked ??= call().then(
      () => true,
      (error: unknown) => {
        logger.warn({ what, error: describeError(error) }, 'form interaction acknowledgement failed');
        return false;
      },
    );
    return acked;
  };
  const timer = setTimeout(() => void ackWith('defer', () => interaction.deferReply({ flags: MessageFlags.Ephemeral })), OPEN_ACK_DEADLINE_MS);
  return {
    showForm: async (form) => {
      clearTimeout(timer);
      if (acked) return false;
      return ackWith('modal', () => interaction.showModal(formModal(form) as never));
    },
    reply: async (text) => {
      clearTimeout(timer);
      if (!acked) {
        await ackWith('reply', () => interaction.reply({ content: text, flags: MessageFlags.Ephemeral, allowedMentions: NO_MENTIONS }));
        return;
      }
      if (!(await acked)) return;
      await editReply(interaction, text, logger);
    },
  };
}

/** Defers privately at once and returns a responder that edits the deferred reply (forms cannot open any more). */
async function deferPrivately(interaction: ButtonInteraction | ModalSubmitInteraction, logger: Logger): Promise<FormResponder | undefined> {
  try {
    await interaction.deferReply({ flags: MessageFlags.Ephemeral });
  } catch (error) {
    logger.warn({ error: describeError(error) }, 'form interaction acknowledgement failed');
    return undefined;
  }
  return { showForm: () => Promise.resolve(false), reply: (text) => editReply(interaction, text, logger) };
}

async function editReply(interaction: ButtonInteraction | ModalSubmitInteraction, text: string, logger: Logger): Promise<void> {
  try {
    await interaction.editReply({ content: text, allowedMentions: NO_MENTIONS });
  } catch (error) {
    logger.warn({ error: describeError(error) }, 'form interaction reply failed');
  }
}
