/** Discord clicks and submissions on form cards → `form` inbound events, each acknowledged within Discord's 3 s window. */
import { ComponentType, type ButtonInteraction, type ModalSubmitInteraction } from 'discord.js';
import type { FormResponder, InboundEvent } from '../channel-adapter.js';
import type { Logger } from '../../shared/logger.js';
import { deferPrivately, modalOrReplyClick } from './discord-acknowledge.js';
import { formModal, parseFormCustomId } from './discord-forms.js';

const LOG_LABEL = 'form interaction';

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
  const deferred = await deferPrivately(interaction, logger, LOG_LABEL);
  if (!deferred) return true;
  // Deferred already: forms cannot open any more, answers edit the private reply.
  const respond: FormResponder = { showForm: () => Promise.resolve(false), reply: deferred.reply };
  if (parsed.action === 'form-decline') deliver({ ...base, action: 'decline', values: {}, respond });
  if (parsed.action === 'form-submit' && interaction.isModalSubmit())
    deliver({ ...base, action: 'submit', values: submittedValues(interaction), respond });
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
  const click = modalOrReplyClick(interaction, logger, LOG_LABEL);
  return { showForm: (form) => click.openModal(formModal(form)), reply: click.reply };
}
