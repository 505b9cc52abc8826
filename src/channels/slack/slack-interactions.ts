/** Slash commands, button clicks and modal submissions → inbound events (each already acknowledged by the caller). */
import type { CommandName, Conversation, InboundEvent, PlatformUser, Responder } from '../channel-adapter.js';
import { COMMAND_NAMES } from '../channel-adapter.js';
import { parseAction, parseStopValue, STEER_ACTION, STOP_ACTION } from './slack-blocks.js';
import { isAllowedChannel, isDirect, parseTarget, threadKey, type SlackScope } from './slack-events.js';
import { onFormAction, onFormSubmission } from './slack-form-interactions.js';
import { parseFormAction, readFormSubmission } from './slack-forms.js';
import { buildModal, readSubmission, type ModalKind } from './slack-modals.js';

/** Where a private answer goes: the interaction's `response_url`, else an ephemeral message in the channel. */
export interface ReplyTarget {
  responseUrl: string;
  channelId: string;
  userId: string;
  /** The thread an ephemeral answer goes into (a `!command` typed in a thread). */
  threadTs?: string | undefined;
}

export interface InteractionDeps {
  scope: SlackScope;
  /** The configured slash command (`/sandpiper`). */
  slash: string;
  deliver(event: InboundEvent): void;
  /** Opens a modal with a trigger id; false when Slack refused (expired trigger). */
  openView(triggerId: string, view: Record<string, unknown>): Promise<boolean>;
  /** A private answer; never throws. */
  privateReply(target: ReplyTarget, text: string): Promise<void>;
  /** The user's most recent Sandpiper thread in a channel (slash commands carry no thread). */
  recentThread(channel: string, userId: string): string | undefined;
  /** Replaces a bot message with plain text (no blocks); best effort, never throws. */
  replaceWithText(channel: string, ts: string, text: string): Promise<void>;
}

/** The fields of a slash-command payload we read. */
export interface RawCommand {
  text?: string;
  channel_id?: string;
  channel_name?: string;
  user_id?: string;
  user_name?: string;
  response_url?: string;
  trigger_id?: string;
  thread_ts?: string;
}

const THREAD_COMMANDS: readonly CommandName[] = ['status', 'close', 'cancel', 'model', 'grants', 'mcp', 'steer'];
/** `--model alias` (or `--model=alias`) at the start of an ask's text. */
const MODEL_FLAG = /^--model(?:=|\s+)(\S+)\s*([\s\S]*)$/;

function responder(deps: InteractionDeps, target: ReplyTarget): Responder {
  return { reply: (text) => deps.privateReply(target, text) };
}

export function helpText(slash: string): string {
  return [
    `\`${slash} <question>\` or \`${slash} ask <question>\`: start a new thread`,
    `\`${slash} ask --model <alias> <question>\`: start a thread on another model`,
    `\`${slash} status\`, \`${slash} cancel\`, \`${slash} close\`, \`${slash} model [alias]\`: act on your latest thread in this channel`,
    `\`${slash} steer <text>\`: add guidance to the running turn of your latest thread here (read at its next model call)`,
    `\`${slash} forget [name]\`: delete your own memories (all, or one by name)`,
    `\`${slash} grants [revoke <id>]\`: list the standing approvals (Always) that apply, or revoke one`,
    `\`${slash} mcp\` / \`${slash} mcp refresh\`: show the MCP servers and their tools, or refresh them (thread owner or admin)`,
    'In a thread, `!status`, `!cancel`, `!close`, `!steer <text>`, `!model [alias]`, `!mcp [refresh]` and `!grants [revoke <id>]` do the same.',
    `\`${slash} link\` / \`${slash} unlink\`: link your Slack account to Sandpiper`,
    `\`${slash} signout [server]\`: forget your sign-in to an MCP server (all of them without a name)`,
    'Or @mention me in a channel to start a thread.',
  ].join('\n');
}

/** Splits `/sandpiper <sub> <rest>`: a known first word is the subcommand, anything else is a question. */
export function parseCommandText(text: string): { name: CommandName | 'help'; rest: string } {
  const trimmed = text.trim();
  if (trimmed === '' || trimmed.toLowerCase() === 'help') return { name: 'help', rest: '' };
  const match = /^(\S+)\s*([\s\S]*)$/.exec(trimmed);
  const first = (match?.[1] ?? '').toLowerCase() as CommandName;
  if (COMMAND_NAMES.includes(first)) return { name: first, rest: (match?.[2] ?? '').trim() };
  return { name: 'ask', rest: trimmed };
}

/** Handles one slash command. */
export async function onSlashCommand(command: RawCommand, deps: InteractionDeps): Promise<void> {
  const userId = command.user_id ?? '';
  const channel = command.channel_id ?? '';
  if (!userId || !channel) return;
  const target: ReplyTarget = { responseUrl: command.response_url ?? '', channelId: channel, userId };
  const respond = responder(deps, target);
  const { name, rest } = parseCommandText(command.text ?? '');
  if (name === 'help') return respond.reply(helpText(deps.slash));
  if (name === 'link' && rest === '')
    return openModal(
      deps,
      command.trigger_id,
      { kind: 'link', approvalId: '', responseUrl: target.responseUrl, channelId: channel },
      respond,
    );
  const conversation = conversationOf(command, name, deps);
  if (name === 'ask' && conversation.kind === 'channel' && !isAllowedChannel(deps.scope, channel)) {
    return respond.reply('I am not allowed to open threads in this channel.');
  }
  const user: PlatformUser = { id: userId, name: command.user_name ?? userId };
  deps.deliver({ type: 'command', name, user, conversation, args: commandArgs(name, rest), respond });
}

type CommandArgs = {
  message?: string;
  token?: string;
  model?: string;
  server?: string;
  revoke?: string;
  memory?: string;
  action?: string;
};

/** The commands whose whole rest, when given, is one optional argument. */
const REST_ARGUMENT: Partial<Record<CommandName, 'model' | 'server' | 'memory'>> = {
  model: 'model',
  signout: 'server',
  forget: 'memory',
};

function commandArgs(name: CommandName, rest: string): CommandArgs {
  const key = REST_ARGUMENT[name];
  if (key !== undefined) return rest === '' ? {} : { [key]: rest };
  if (name === 'grants') {
    const revoke = /^revoke\s+(\S+)$/i.exec(rest);
    return revoke ? { revoke: revoke[1] ?? '' } : {};
  }
  if (name === 'ask') {
    const flag = MODEL_FLAG.exec(rest);
    return flag ? { message: (flag[2] ?? '').trim(), model: flag[1] ?? '' } : { message: rest };
  }
  if (name === 'mcp') return { action: rest.toLowerCase() };
  if (name === 'steer') return { message: rest };
  return name === 'link' ? { token: rest } : {};
}

/**
 * A `!status`, `!cancel`, `!close` or `!model [alias]` typed in a thread (Slack has no slash commands in threads):
 * the same command as the slash command, answered privately in that thread. False when the text is no such command.
 */
export function onBangCommand(
  text: string,
  user: PlatformUser,
  conversation: Conversation,
  deps: InteractionDeps,
): boolean {
  const match = /^!(status|cancel|close|steer|model|grants|mcp)(?:\s+([\s\S]*))?$/i.exec(text.trim());
  if (!match || conversation.kind === 'channel') return false;
  const name = (match[1] ?? '').toLowerCase() as CommandName;
  const { channel, threadTs } = parseTarget(conversation.channelId);
  const respond = responder(deps, { responseUrl: '', channelId: channel, userId: user.id, threadTs });
  deps.deliver({
    type: 'command',
    name,
    user,
    conversation,
    args: commandArgs(name, (match[2] ?? '').trim()),
    respond,
  });
  return true;
}

function conversationOf(command: RawCommand, name: CommandName, deps: InteractionDeps): Conversation {
  const channel = command.channel_id ?? '';
  if (isDirect(channel) || command.channel_name === 'directmessage') return { kind: 'direct', channelId: channel };
  if (!THREAD_COMMANDS.includes(name)) return { kind: 'channel', channelId: channel };
  const threadTs = command.thread_ts ?? deps.recentThread(channel, command.user_id ?? '');
  return threadTs
    ? { kind: 'thread', channelId: threadKey(channel, threadTs) }
    : { kind: 'channel', channelId: channel };
}

async function openModal(
  deps: InteractionDeps,
  triggerId: string | undefined,
  context: { kind: ModalKind; approvalId: string; responseUrl: string; channelId: string },
  respond: Responder,
): Promise<void> {
  if (triggerId && (await deps.openView(triggerId, buildModal(context)))) return;
  await respond.reply('I could not open the form; please try again.');
}

/** The fields of a block_actions payload we read. */
export interface RawBlockActions {
  user?: { id?: string; username?: string; name?: string };
  trigger_id?: string;
  response_url?: string;
  channel?: { id?: string };
  container?: { channel_id?: string; message_ts?: string };
  message?: { ts?: string; text?: string };
}

/**
 * Handles a click on one of our card buttons. Reject and Request changes carry `openFeedback`: the gateway checks who
 * clicked first (the port's promise), so a stranger gets a refusal and never the feedback modal.
 */
export async function onBlockAction(
  body: RawBlockActions,
  action: { action_id?: string; value?: string },
  deps: InteractionDeps,
): Promise<void> {
  const user = userOf(body.user);
  if (!user) return;
  const actionId = action.action_id ?? '';
  const target = replyTargetOf(body, user.id);
  const form = parseFormAction(actionId, action.value);
  if (form) return onFormAction({ ...form, user, triggerId: body.trigger_id, target }, deps);
  if (actionId === STOP_ACTION) return onStop(body, parseStopValue(action.value), user, deps);
  if (actionId === STEER_ACTION) return onSteer(body, parseStopValue(action.value), user, deps);
  const parsed = parseAction(actionId, action.value);
  if (!parsed) return;
  const respond = responder(deps, target);
  const event = {
    type: 'action',
    name: parsed.action,
    approvalId: parsed.approvalId,
    user,
    feedback: null,
    respond,
  } as const;
  if (parsed.action === 'reject' || parsed.action === 'plan-changes') {
    const context = {
      kind: parsed.action,
      approvalId: parsed.approvalId,
      responseUrl: target.responseUrl,
      channelId: target.channelId,
    };
    const triggerId = body.trigger_id;
    const openFeedback = async (): Promise<boolean> =>
      Boolean(triggerId) && (await deps.openView(triggerId ?? '', buildModal(context)));
    return deps.deliver({ ...event, openFeedback });
  }
  deps.deliver(event);
}

/** Stop on a live message: the cancel command in the thread the button names (it must be the clicked message's channel). */
function onStop(body: RawBlockActions, routeKey: string | undefined, user: PlatformUser, deps: InteractionDeps): void {
  const target = replyTargetOf(body, user.id);
  if (!routeKey || parseTarget(routeKey).channel !== target.channelId) return;
  const ts = body.container?.message_ts ?? body.message?.ts ?? '';
  const text = body.message?.text ?? '';
  const removeControl = (): Promise<void> =>
    ts && text ? deps.replaceWithText(target.channelId, ts, text) : Promise.resolve();
  const conversation: Conversation = { kind: 'thread', channelId: routeKey };
  deps.deliver({
    type: 'command',
    name: 'cancel',
    user,
    conversation,
    args: {},
    respond: responder(deps, target),
    removeControl,
  });
}

/** Steer on a live message: the steer form for the thread the button names; who may steer is checked on submission. */
async function onSteer(
  body: RawBlockActions,
  routeKey: string | undefined,
  user: PlatformUser,
  deps: InteractionDeps,
): Promise<void> {
  const target = replyTargetOf(body, user.id);
  if (!routeKey || parseTarget(routeKey).channel !== target.channelId) return;
  const context = {
    kind: 'steer',
    approvalId: routeKey,
    responseUrl: target.responseUrl,
    channelId: target.channelId,
  } as const;
  return openModal(deps, body.trigger_id, context, responder(deps, target));
}

/** The fields of an `agent_session_stopped` event we read (a click on a session's native Stop button). */
export interface RawSessionStopped {
  channel?: string;
  thread_ts?: string;
  user?: string;
}

/**
 * Slack's native Stop of an agent session: the cancel command of that thread, as the Stop button's (the gateway lets
 * only the owner or an admin stop a turn); a refusal is answered privately in the thread.
 */
export function onSessionStopped(event: RawSessionStopped, deps: InteractionDeps): void {
  const { channel, thread_ts: threadTs, user: userId } = event;
  if (!channel || !threadTs || !userId) return;
  const direct = isDirect(channel);
  if (!direct && !isAllowedChannel(deps.scope, channel)) return;
  const conversation: Conversation = { kind: direct ? 'direct' : 'thread', channelId: threadKey(channel, threadTs) };
  const respond = responder(deps, { responseUrl: '', channelId: channel, userId, threadTs });
  deps.deliver({
    type: 'command',
    name: 'cancel',
    user: { id: userId, name: userId },
    conversation,
    args: {},
    respond,
  });
}

function replyTargetOf(body: RawBlockActions, userId: string): ReplyTarget {
  return {
    responseUrl: body.response_url ?? '',
    channelId: body.channel?.id ?? body.container?.channel_id ?? '',
    userId,
  };
}

/** The clicking or submitting user; undefined when the payload names none. */
function userOf(raw: { id?: string; username?: string; name?: string } | undefined): PlatformUser | undefined {
  if (!raw?.id) return undefined;
  return { id: raw.id, name: raw.username ?? raw.name ?? raw.id };
}

/** The fields of a view_submission payload we read. */
export interface RawViewSubmission {
  user?: { id?: string; username?: string; name?: string };
  view?: { callback_id?: string; private_metadata?: string; state?: unknown };
}

/** Handles a submitted modal we issued: a form, the link token, or the feedback of a rejection / change request. */
export function onViewSubmission(body: RawViewSubmission, deps: InteractionDeps): void {
  const user = userOf(body.user);
  if (!user || !body.view) return;
  const form = readFormSubmission(body.view);
  if (form) return onFormSubmission(form, user, deps);
  const submission = readSubmission(body.view);
  if (!submission) return;
  const { context, value } = submission;
  const respond = responder(deps, { responseUrl: context.responseUrl, channelId: context.channelId, userId: user.id });
  if (context.kind === 'link') {
    const conversation: Conversation = {
      kind: isDirect(context.channelId) ? 'direct' : 'channel',
      channelId: context.channelId,
    };
    deps.deliver({ type: 'command', name: 'link', user, conversation, args: { token: value.trim() }, respond });
    return;
  }
  if (context.kind === 'steer') {
    const conversation: Conversation = { kind: 'thread', channelId: context.approvalId };
    deps.deliver({ type: 'command', name: 'steer', user, conversation, args: { message: value }, respond });
    return;
  }
  deps.deliver({
    type: 'action',
    name: context.kind,
    approvalId: context.approvalId,
    user,
    feedback: value.trim() || null,
    respond,
  });
}
