/** Discord interactions → inbound events: acknowledged first (defer or modal, within 3 s), then handed on. */
import {
  MessageFlags,
  Routes,
  type AutocompleteInteraction,
  type ButtonInteraction,
  type ChatInputCommandInteraction,
  type Interaction,
  type ModalSubmitInteraction,
} from 'discord.js';
import type {
  ActionName,
  CommandName,
  Conversation,
  InboundEvent,
  PlatformUser,
  Responder,
} from '../channel-adapter.js';
import { COMMAND_NAMES } from '../channel-adapter.js';
import { describeError } from '../../shared/errors.js';
import type { Logger } from '../../shared/logger.js';
import { deferPrivately, modalOrReplyClick } from './discord-acknowledge.js';
import { feedbackModal, linkModal, parseCustomId, steerModal } from './discord-components.js';
import { isAllowed, type DiscordScope } from './discord-events.js';
import { handleFormInteraction } from './discord-form-interactions.js';

/** The command options that name a model alias (and offer autocomplete). */
const MODEL_OPTION: Partial<Record<CommandName, string>> = { ask: 'model', model: 'alias' };
type Deliver = (event: InboundEvent) => void;
/** What an interaction that arrives before the adapter can deliver it is told. */
export const NOT_READY = 'Starting up, try again in a moment.';
type Repliable = ChatInputCommandInteraction | ButtonInteraction | ModalSubmitInteraction;

/** Handles one interaction: acknowledges it, then delivers the matching inbound event (if any). */
export async function handleInteraction(
  interaction: Interaction,
  scope: DiscordScope,
  deliver: Deliver,
  logger: Logger,
): Promise<void> {
  if (interaction.isChatInputCommand()) return onCommand(interaction, scope, deliver, logger);
  if (interaction.isAutocomplete()) return onAutocomplete(interaction, deliver, logger);
  if (
    (interaction.isButton() || interaction.isModalSubmit()) &&
    (await handleFormInteraction(interaction, deliver, logger))
  )
    return;
  if (interaction.isButton()) return onButton(interaction, deliver, logger);
  if (interaction.isModalSubmit()) return onModal(interaction, deliver, logger);
}

/** Answers an interaction the adapter cannot hand on yet (still starting): privately, so it is not left unanswered. */
export async function answerNotReady(interaction: Interaction, logger: Logger): Promise<void> {
  if (!interaction.isRepliable()) return;
  try {
    await interaction.reply({ content: NOT_READY, flags: MessageFlags.Ephemeral, allowedMentions: { parse: [] } });
  } catch (error) {
    logger.warn({ error: describeError(error) }, 'interaction acknowledgement failed');
  }
}

async function onCommand(
  interaction: ChatInputCommandInteraction,
  scope: DiscordScope,
  deliver: Deliver,
  logger: Logger,
): Promise<void> {
  const name = interaction.commandName as CommandName;
  if (!COMMAND_NAMES.includes(name)) return;
  if (name === 'link') {
    await interaction.showModal(linkModal() as never);
    return;
  }
  const respond = await acknowledge(interaction, logger);
  if (!respond) return;
  const conversation = conversationOf(interaction);
  if (name === 'ask' && conversation.kind === 'channel') {
    if (!isAllowed(scope, interaction.guildId, interaction.channelId)) {
      await respond.reply('I am not allowed to open threads in this channel.');
      return;
    }
  }
  deliver({
    type: 'command',
    name,
    user: userOf(interaction),
    conversation,
    args: commandArgs(interaction, name),
    respond,
  });
}

type CommandArgs = {
  message?: string;
  model?: string;
  server?: string;
  revoke?: string;
  memory?: string;
  action?: string;
};

function commandArgs(interaction: ChatInputCommandInteraction, name: CommandName): CommandArgs {
  const args: CommandArgs = {};
  if (name === 'ask') args.message = interaction.options.getString('message', true);
  if (name === 'steer') args.message = interaction.options.getString('text', true);
  const optional: Partial<Record<CommandName, 'server' | 'revoke' | 'memory'>> = {
    signout: 'server',
    grants: 'revoke',
    forget: 'memory',
  };
  const key = optional[name];
  const value = key === undefined ? null : interaction.options.getString(key);
  if (key !== undefined && value !== null) args[key] = value;
  if (name === 'mcp') args.action = interaction.options.getString('action') ?? '';
  const option = MODEL_OPTION[name];
  const model = option === undefined ? null : interaction.options.getString(option);
  if (model !== null) args.model = model;
  return args;
}

/** Autocomplete of a model option: the gateway's choices, answered at once (Discord waits for them, 3 s at most). */
async function onAutocomplete(interaction: AutocompleteInteraction, deliver: Deliver, logger: Logger): Promise<void> {
  const focused = interaction.options.getFocused(true);
  const answer = async (choices: readonly { label: string; value: string }[]): Promise<void> => {
    try {
      await interaction.respond(
        choices
          .slice(0, 25)
          .map((choice) => ({ name: choice.label.slice(0, 100) || choice.value, value: choice.value })),
      );
    } catch (error) {
      logger.warn({ error: describeError(error) }, 'autocomplete answer failed');
    }
  };
  if (MODEL_OPTION[interaction.commandName as CommandName] !== focused.name) return answer([]);
  const user = { id: interaction.user.id, name: interaction.user.globalName ?? interaction.user.username };
  deliver({ type: 'suggest', field: 'model', query: String(focused.value), user, respond: answer });
}

async function onButton(interaction: ButtonInteraction, deliver: Deliver, logger: Logger): Promise<void> {
  const parsed = parseCustomId(interaction.customId);
  if (!parsed || parsed.action === 'link') return;
  if (parsed.action === 'stop') return onStop(interaction, deliver, logger);
  if (parsed.action === 'steer') return showSteerModal(interaction, logger);
  if (parsed.action === 'reject' || parsed.action === 'plan-changes') {
    // Not acknowledged yet: the gateway refuses strangers privately, and only the owner gets the feedback modal.
    const click = modalOrReplyClick(interaction, logger, 'feedback click');
    const modal = feedbackModal(parsed.action, parsed.approvalId);
    const openFeedback = (): Promise<boolean> => click.openModal(modal);
    deliver({
      type: 'action',
      name: parsed.action,
      approvalId: parsed.approvalId,
      user: userOf(interaction),
      feedback: null,
      respond: { reply: click.reply },
      openFeedback,
    });
    return;
  }
  const respond = await acknowledge(interaction, logger);
  if (respond) deliverAction(parsed.action, parsed.approvalId, null, interaction, respond, deliver);
}

/** Stop on a live message: the `/cancel` command in the message's thread; the button goes when it no longer applies. */
async function onStop(interaction: ButtonInteraction, deliver: Deliver, logger: Logger): Promise<void> {
  const respond = await acknowledge(interaction, logger);
  if (!respond) return;
  const route = Routes.channelMessage(interaction.channelId, interaction.message.id);
  const removeControl = async (): Promise<void> => {
    try {
      await interaction.client.rest.patch(route, { body: { components: [] } });
    } catch (error) {
      logger.warn({ error: describeError(error) }, 'stop button could not be removed');
    }
  };
  deliver({
    type: 'command',
    name: 'cancel',
    user: userOf(interaction),
    conversation: conversationOf(interaction),
    args: {},
    respond,
    removeControl,
  });
}

/** Steer on a live message: the form opens at once; who may steer is checked when it is submitted (the Stop rule). */
async function showSteerModal(interaction: ButtonInteraction, logger: Logger): Promise<void> {
  try {
    await interaction.showModal(steerModal() as never);
  } catch (error) {
    logger.warn({ error: describeError(error) }, 'steer form could not be opened');
  }
}

async function onModal(interaction: ModalSubmitInteraction, deliver: Deliver, logger: Logger): Promise<void> {
  const parsed = parseCustomId(interaction.customId);
  if (!parsed || parsed.action === 'stop') return;
  const respond = await acknowledge(interaction, logger);
  if (!respond) return;
  if (parsed.action === 'steer') {
    const message = interaction.fields.getTextInputValue('steer');
    deliver({
      type: 'command',
      name: 'steer',
      user: userOf(interaction),
      conversation: conversationOf(interaction),
      args: { message },
      respond,
    });
    return;
  }
  if (parsed.action === 'link') {
    const token = interaction.fields.getTextInputValue('token');
    deliver({
      type: 'command',
      name: 'link',
      user: userOf(interaction),
      conversation: conversationOf(interaction),
      args: { token },
      respond,
    });
    return;
  }
  const feedback = interaction.fields.getTextInputValue('feedback').trim();
  deliverAction(parsed.action, parsed.approvalId, feedback || null, interaction, respond, deliver);
}

function deliverAction(
  name: ActionName,
  approvalId: string,
  feedback: string | null,
  interaction: Repliable,
  respond: Responder,
  deliver: Deliver,
): void {
  deliver({ type: 'action', name, approvalId, user: userOf(interaction), feedback, respond });
}

/** Defers privately at once (the 3 s window), and returns a responder that edits the deferred reply. */
function acknowledge(interaction: Repliable, logger: Logger): Promise<Responder | undefined> {
  return deferPrivately(interaction, logger, 'interaction');
}

function userOf(interaction: Repliable): PlatformUser {
  return {
    id: interaction.user.id,
    name: interaction.user.globalName ?? interaction.user.username,
    roles: rolesOf(interaction),
  };
}

/** The member's role ids: a cached GuildMember has a role manager, an uncached one the raw id list; none in a DM. */
function rolesOf(interaction: Repliable): string[] {
  const roles = interaction.member?.roles;
  if (roles === undefined) return [];
  return Array.isArray(roles) ? [...(roles as string[])] : [...roles.cache.keys()];
}

function conversationOf(interaction: Repliable): Conversation {
  const channel = interaction.channel;
  if (!interaction.inGuild()) return { kind: 'direct', channelId: interaction.channelId ?? '' };
  const thread = channel !== null && channel.isThread();
  return { kind: thread ? 'thread' : 'channel', channelId: interaction.channelId ?? '' };
}
