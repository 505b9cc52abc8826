/**
 * The bolt listeners of the Slack adapter: messages and mentions, slash commands, buttons, modals, Slack's session
 * Stop, and (installs in many workspaces) `app_uninstalled` / `tokens_revoked`. Every event's workspace is learnt
 * first, so answers use that workspace's token; each listener runs with that workspace's bot ids.
 */
import type { App, Context } from '@slack/bolt';
import type { InboundEvent } from '../channel-adapter.js';
import { describeError } from '../../shared/errors.js';
import type { Logger } from '../../shared/logger.js';
import { truncate } from '../format/truncate.js';
import { withEventId } from '../inbound-id.js';
import type { SlackCalls } from './slack-calls.js';
import {
  parseTarget,
  toInboundMessage,
  type RawMessageEvent,
  type RecentKeys,
  type SlackScope,
} from './slack-events.js';
import {
  onBangCommand,
  onBlockAction,
  onSessionStopped,
  onSlashCommand,
  onViewSubmission,
  type InteractionDeps,
  type RawSessionStopped,
  type ReplyTarget,
} from './slack-interactions.js';
import type { SlackTeams } from './slack-teams.js';

/** What the listeners need of the adapter. */
export interface ListenerHost {
  slash: string;
  logger: Logger;
  signal: AbortSignal;
  calls: SlackCalls;
  teams: SlackTeams;
  seen: RecentKeys;
  deliver(event: InboundEvent): void;
  privateReply(target: ReplyTarget, text: string): Promise<void>;
  rememberThread(channel: string, userId: string, threadTs: string): void;
  recentThread(channel: string, userId: string): string | undefined;
  bestEffort(what: string, call: () => Promise<unknown>): Promise<void>;
  /** A workspace uninstalled the app or revoked its bot token. */
  uninstalled(teamId: string): Promise<void>;
}

type Body = Record<string, unknown> & { event?: Record<string, unknown> };

export function listen(app: App, base: SlackScope, host: ListenerHost): void {
  const depsOf = (context: Context): InteractionDeps => interactionDeps(scopeOf(base, context), host);
  // Each invocation's trigger id goes on its events: the gateway's dedup ledger records it first.
  const stamped = (context: Context, triggerId: string | undefined): InteractionDeps => ({
    ...depsOf(context),
    deliver: (event) => host.deliver(withEventId(event, triggerId)),
  });
  app.use(async ({ body, context, next }) => {
    learnTeam(host.teams, body as Body, context);
    await next();
  });
  app.event('message', async ({ event, context }) => onMessageEvent(event as RawMessageEvent, depsOf(context), host));
  app.event('app_mention', async ({ event, context }) =>
    onMessageEvent(event as RawMessageEvent, depsOf(context), host),
  );
  app.event('agent_session_stopped', async ({ event, body, context }) =>
    onSessionStopped(event as RawSessionStopped, stamped(context, body.event_id)),
  );
  app.event('app_uninstalled', async ({ body }) => host.uninstalled(body.team_id));
  app.event('tokens_revoked', async ({ event, body }) => {
    if ((event.tokens.bot ?? []).length > 0) await host.uninstalled(body.team_id);
  });
  app.command(host.slash, async ({ command, ack, context }) => {
    await ack();
    await onSlashCommand(command, stamped(context, command.trigger_id));
  });
  app.action({ action_id: /^sp:/ }, async ({ body, action, ack, context }) => {
    await ack();
    if (body.type === 'block_actions')
      await onBlockAction(body, action as { action_id?: string; value?: string }, stamped(context, body.trigger_id));
  });
  app.view({ callback_id: /^sp:/, type: 'view_submission' }, async ({ body, ack, context }) => {
    await ack();
    onViewSubmission(body, stamped(context, (body as { trigger_id?: string }).trigger_id));
  });
  app.error(async (error) => {
    // An event of a workspace that is not installed (any more): acknowledged and ignored.
    if ((error as { code?: string }).code === 'slack_bolt_authorization_error')
      host.logger.info('slack event of a workspace that is not installed ignored');
    else host.logger.warn({ error: truncate(describeError(error), 300) }, 'slack listener failed');
  });
}

/** The event's workspace's bot ids (installs in many workspaces); the configured bot's otherwise. */
function scopeOf(base: SlackScope, context: Context): SlackScope {
  if (!context.botUserId || context.botUserId === base.botUserId) return base;
  return { ...base, botUserId: context.botUserId, botId: context.botId ?? base.botId };
}

function learnTeam(teams: SlackTeams, body: Body, context: Context): void {
  const field = (value: unknown, key: string): string | undefined => {
    const inner = (value ?? {}) as Record<string, unknown>;
    return typeof inner[key] === 'string' ? inner[key] : undefined;
  };
  const keys = [
    field(body.event, 'channel'),
    field(body.event, 'user'),
    field(body, 'channel_id'),
    field(body, 'user_id'),
    field(body.channel, 'id'),
    field(body.user, 'id'),
  ];
  teams.learn(context.teamId, keys, field(body, 'trigger_id'));
}

/** A `message` or `app_mention` event; a mention arrives as both, so the second of the pair is dropped. */
function onMessageEvent(event: RawMessageEvent, deps: InteractionDeps, host: ListenerHost): void {
  if (!host.seen.firstTime(`${event.channel ?? ''}:${event.ts ?? ''}`)) return;
  const inbound = toInboundMessage(event, deps.scope);
  if (!inbound) return;
  // A command typed as a message is deduplicated by that message (Slack retries it like any event).
  const stamped = {
    ...deps,
    deliver: (command: InboundEvent) =>
      host.deliver(withEventId(command, `msg:${inbound.conversation.channelId}:${inbound.messageId}`)),
  };
  if (onBangCommand(inbound.text, inbound.user, inbound.conversation, stamped)) return;
  if (inbound.conversation.kind === 'thread') {
    const { channel, threadTs } = parseTarget(inbound.conversation.channelId);
    if (threadTs) host.rememberThread(channel, inbound.user.id, threadTs);
  }
  host.deliver(inbound);
}

function interactionDeps(scope: SlackScope, host: ListenerHost): InteractionDeps {
  return {
    scope,
    slash: host.slash,
    deliver: (event) => host.deliver(event),
    openView: async (triggerId, view) => {
      try {
        await host.calls.call('views.open', { trigger_id: triggerId, view }, undefined, host.signal);
        return true;
      } catch (error) {
        host.logger.warn({ error: describeError(error) }, 'slack modal could not be opened');
        return false;
      }
    },
    privateReply: (target, text) => host.privateReply(target, text),
    recentThread: (channel, userId) => host.recentThread(channel, userId),
    replaceWithText: (channel, ts, text) =>
      host.bestEffort('remove stop button', () =>
        host.calls.call('chat.update', { channel, ts, text, blocks: [] }, undefined, host.signal),
      ),
  };
}
