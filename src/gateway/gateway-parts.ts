/**
 * The gateway's parts, built in dependency order: delivery first (router, dedup ledger, catch-up, subscriptions, the
 * conversations service, the approval desk), then what handles inbound events (forms, commands, the message path).
 * The gateway keeps only its lifecycle and the event switch.
 */
import type { ChannelAdapter, InboundEvent } from '../channels/channel-adapter.js';
import type { Logger } from '../shared/logger.js';
import type { KeyedSerialLanes } from '../shared/serial-lane.js';
import { ApprovalDesk } from './approvals.js';
import { AttachmentIntake } from './attachments/attachment-intake.js';
import { CatchUp } from './catch-up.js';
import { localGatewayCoordination } from './cluster/local-coordination.js';
import { CommandHandler } from './commands.js';
import { Conversations } from './conversations.js';
import { ElicitationDesk } from './elicitations.js';
import type { GatewayDeps } from './gateway-types.js';
import { InboundLedger } from './inbound-ledger.js';
import { InboundLimits } from './inbound-limits.js';
import { MessageRouting } from './message-routing.js';
import { ModelChoice } from './model-choice.js';
import { Router } from './router.js';
import { Subscriptions, timingOf } from './subscriptions.js';

/** What every part shares with the gateway. */
export interface GatewayBase {
  logger: Logger;
  now: () => number;
  adapters: ReadonlyMap<string, ChannelAdapter>;
  /** Routing order per thread (arrival order); not a queue of turns: the workstream owns that (ADR 0006). */
  lanes: KeyedSerialLanes;
  signal: AbortSignal;
  /** The inbound pipeline's entry: catch-up replays missed events through it (`reclaim`: see InboundLedger.admit). */
  dispatch(adapter: ChannelAdapter, event: InboundEvent, reclaim: boolean): Promise<void>;
}

export interface DeliveryParts {
  router: Router;
  /** Dedup ledger and catch-up (ADR 0015). */
  ledger: InboundLedger;
  catchUp: CatchUp;
  subs: Subscriptions;
  conversations: Conversations;
  desk: ApprovalDesk;
}

export interface GatewayParts extends DeliveryParts {
  forms: ElicitationDesk;
  models: ModelChoice;
  commands: CommandHandler;
  messages: MessageRouting;
}

export function createGatewayParts(deps: GatewayDeps, base: GatewayBase): GatewayParts {
  const delivery = createDelivery(deps, base);
  return { ...delivery, ...createHandlers(deps, base, delivery) };
}

function createDelivery(deps: GatewayDeps, base: GatewayBase): DeliveryParts {
  const { logger, now, adapters, lanes, signal } = base;
  const { stores, config } = deps;
  const coordination = deps.coordination ?? localGatewayCoordination(deps.manager);
  const directory = coordination.linkDirectory(stores, logger);
  const router = new Router(stores, deps.manager, now, { directory, locate: (wsId) => coordination.locate(wsId) });
  const ledger = new InboundLedger(
    stores.inboundEvents,
    now,
    logger,
    coordination.recentClaims(),
    coordination.pendingClaims(),
  );
  const windowMs = config.gateway.catch_up_hours * 3_600_000;
  const catchUp = new CatchUp({
    stores,
    logger,
    now,
    signal,
    windowMs,
    dispatch: (adapter, event, reclaim) => base.dispatch(adapter, event, reclaim),
  });
  // The desk is built after the subscriptions (it renders through the conversations service); they reach it lazily.
  const subs: Subscriptions = new Subscriptions({
    logger,
    desk: (): ApprovalDesk => desk,
    ...timingOf(deps.options),
    saveLiveState: (platform, channelId, state) => stores.routes.setLiveState(platform, channelId, state),
  });
  const maxBytes = config.gateway.max_attachment_mb * 1024 * 1024;
  const intake = new AttachmentIntake({ workspaceDir: config.agent.workspace_dir, maxBytes, logger });
  const conversations: Conversations = new Conversations({
    router,
    subs,
    intake,
    ledger,
    adapters,
    lanes,
    logger,
    signal,
  });
  const desk: ApprovalDesk = new ApprovalDesk({
    stores,
    manager: deps.manager,
    router,
    logger,
    adapters,
    signal,
    conversations,
  });
  return { router, ledger, catchUp, subs, conversations, desk };
}

function createHandlers(
  deps: GatewayDeps,
  base: GatewayBase,
  delivery: DeliveryParts,
): Omit<GatewayParts, keyof DeliveryParts> {
  const { logger, now, adapters, lanes, signal } = base;
  const { stores, config, manager } = deps;
  const { router, subs, conversations, ledger, desk } = delivery;
  const forms = new ElicitationDesk({ stores, router, logger, adapters, signal, now });
  const models = new ModelChoice(config);
  const { max_message_chars: maxChars, user_rate_limit: limit, user_rate_window_s: windowS } = config.gateway;
  const limits = new InboundLimits({ maxChars, limit, windowMs: windowS * 1000, now });
  const messages = new MessageRouting({
    config,
    stores,
    router,
    subs,
    conversations,
    models,
    ledger,
    limits,
    lanes,
    logger,
    signal,
    now,
  });
  const commands = new CommandHandler({
    stores,
    manager,
    router,
    signal,
    now,
    models,
    limits,
    authorizations: deps.authorizations,
    mcp: deps.mcp,
    startConversation: (adapter, channelId, name, requester, ownerUserId, text, modelAlias) =>
      messages.startConversation(adapter, channelId, name, { requester }, ownerUserId, text, modelAlias),
    conversations,
    cancelCards: (approvalIds) => desk.cancelCards(approvalIds),
  });
  return { forms, models, commands, messages };
}
