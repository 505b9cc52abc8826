/** Wires channel adapters ↔ router ↔ workstreams; owns the gateway's lifecycle and per-thread ordering. */
import { setMaxListeners } from 'node:events';
import type { ContentPart } from '../agent/messages.js';
import type { SendOptions } from '../agent/workstream-api.js';
import type { AdapterState, ChannelAdapter, InboundEvent } from '../channels/channel-adapter.js';
import { describeError } from '../shared/errors.js';
import type { Logger } from '../shared/logger.js';
import { ApprovalDesk } from './approvals.js';
import { AttachmentIntake } from './attachments/attachment-intake.js';
import { CatchUp } from './catch-up.js';
import { Conversations } from './conversations.js';
import { stopInbound } from './channel-features.js';
import { InboundLedger, LEDGER_MARGIN_MS, ledgerOptions } from './inbound-ledger.js';
import { isClustered } from './cluster/cluster-mode.js';
import { CommandHandler } from './commands.js';
import { ElicitationDesk } from './elicitations.js';
import { settleInterruptedTurns, type InterruptedTurnsDeps } from './interrupted-turns.js';
import { InboundLimits } from './inbound-limits.js';
import { MessageRouting } from './message-routing.js';
import { ModelChoice } from './model-choice.js';
import { Router } from './router.js';
import { Subscriptions, timingOf } from './subscriptions.js';
import { isInteraction, refuseWhileStopping } from './interaction-events.js';
import type { RenderTarget } from './cluster/handoffs.js';
import { KeyedSerialLanes } from '../shared/serial-lane.js';
import { InFlight } from '../shared/in-flight.js';
import type { Gateway, GatewayDeps, GatewayStatus } from './gateway-types.js';

export type { Gateway, GatewayDeps, GatewayStatus } from './gateway-types.js';

/** How often quiet subscriptions are swept (a safety net; they are normally released at `turn-end`). */
const SWEEP_INTERVAL_MS = 60_000;
/** How long a stop waits for inbound events being handled, then for the platform calls of live answers (ADR 0013). */
const STOP_GRACE_MS = 3000;

export function createGateway(deps: GatewayDeps): Gateway {
  return new ChannelGateway(deps);
}

class ChannelGateway implements Gateway {
  private readonly router: Router;
  /** Routing order per thread (arrival order); not a queue of turns: the workstream owns that, with its bound (ADR 0006). */
  private readonly lanes = new KeyedSerialLanes();
  private readonly subs: Subscriptions;
  private readonly desk: ApprovalDesk;
  private readonly commands: CommandHandler;
  private readonly forms: ElicitationDesk;
  private readonly models: ModelChoice;
  private readonly limits: InboundLimits;
  private readonly conversations: Conversations;
  private readonly messages: MessageRouting;
  private unsubscribeForms: (() => void) | undefined;
  private readonly adapters: Map<string, ChannelAdapter>;
  /** Inbound events being handled; a stop lets them finish (within its grace) before the drain. */
  private readonly handling = new InFlight();
  private readonly controller = new AbortController();
  private readonly logger: Logger;
  private readonly now: () => number;
  private stopped = false;
  private sweepTimer: NodeJS.Timeout | undefined;
  private pruneTimer: NodeJS.Timeout | undefined;
  /** Dedup ledger and catch-up (ADR 0015). */
  private readonly ledger: InboundLedger;
  private readonly catchUp: CatchUp;
  private readonly unsubscribeGaps: Array<() => void> = [];

  constructor(private readonly deps: GatewayDeps) {
    this.logger = deps.logger.child({ component: 'gateway' });
    // Every in-flight platform call listens on this signal; hundreds of threads are normal.
    setMaxListeners(0, this.controller.signal);
    this.now = deps.options?.now ?? Date.now;
    this.adapters = new Map(deps.adapters.map((adapter) => [adapter.platform, adapter]));
    this.router = new Router(deps.stores, deps.manager, this.now, { singleInstance: !isClustered(deps.config), logger: this.logger });
    this.ledger = new InboundLedger(deps.stores.inboundEvents, this.now, this.logger, ledgerOptions(deps.config, deps.instanceId));
    this.catchUp = new CatchUp({
      stores: deps.stores, logger: this.logger, now: this.now, signal: this.controller.signal,
      windowMs: deps.config.gateway.catch_up_hours * 3_600_000, dispatch: (adapter, event, reclaim) => this.dispatch(adapter, event, reclaim),
    });
    this.subs = new Subscriptions({
      logger: this.logger, desk: () => this.desk, ...timingOf(deps.options),
      saveLiveState: (platform, channelId, state) => deps.stores.routes.setLiveState(platform, channelId, state),
    });
    const signal = this.controller.signal;
    const intake = new AttachmentIntake({
      workspaceDir: deps.config.agent.workspace_dir, maxBytes: deps.config.gateway.max_attachment_mb * 1024 * 1024, logger: this.logger,
    });
    this.conversations = new Conversations({
      router: this.router, subs: this.subs, intake, ledger: this.ledger, adapters: this.adapters, lanes: this.lanes, logger: this.logger, signal,
    });
    this.desk = new ApprovalDesk({
      stores: deps.stores, manager: deps.manager, router: this.router, logger: this.logger, adapters: this.adapters, signal,
      conversations: this.conversations,
    });
    this.forms = new ElicitationDesk({ stores: deps.stores, router: this.router, logger: this.logger, adapters: this.adapters, signal, now: this.now });
    this.models = new ModelChoice(deps.config);
    const { max_message_chars: maxChars, user_rate_limit: limit, user_rate_window_s: windowS } = deps.config.gateway;
    this.limits = new InboundLimits({ maxChars, limit, windowMs: windowS * 1000, now: this.now });
    this.commands = new CommandHandler({
      stores: deps.stores, manager: deps.manager, router: this.router, signal, now: this.now, models: this.models, limits: this.limits,
      authorizations: deps.authorizations, mcp: deps.mcp,
      startConversation: (adapter, channelId, name, requester, ownerUserId, text, modelAlias) =>
        this.messages.startConversation(adapter, channelId, name, { requester }, ownerUserId, text, modelAlias),
      conversations: this.conversations,
      cancelCards: (approvalIds) => this.desk.cancelCards(approvalIds),
    });
    const routing = { config: deps.config, stores: deps.stores, router: this.router, subs: this.subs, conversations: this.conversations, models: this.models };
    this.messages = new MessageRouting({ ...routing, ledger: this.ledger, limits: this.limits, lanes: this.lanes, logger: this.logger, signal, now: this.now });
  }

  async start(signal: AbortSignal): Promise<void> {
    signal.addEventListener('abort', () => void this.stop().catch((error: unknown) => this.logFailure('stop', error)), { once: true });
    if (this.adapters.size === 0) this.logger.warn('no channel adapter is enabled');
    if (this.stopped) return;
    this.unsubscribeForms = this.forms.subscribe(this.deps.elicitations, this.deps.authorizations);
    // Purpose: cadence (expired subscriptions are swept).
    this.sweepTimer = setInterval(() => this.subs.sweep(), SWEEP_INTERVAL_MS);
    this.sweepTimer.unref();
    this.pruneTimer = this.ledger.startPruning(this.deps.config.gateway.catch_up_hours * 3_600_000 + LEDGER_MARGIN_MS);
    // Everything recorded before this moment was handled by an earlier run; what came after is caught up below.
    const startedAt = this.now();
    await Promise.all([this.ledger.loadFloors([...this.adapters.keys()]), this.router.startDirectory(this.controller.signal)]);
    await Promise.all(
      [...this.adapters.values()].map(async (adapter) => {
        try {
          const gaps = adapter.features.history?.onGap((lostAt) => void this.catchUp.run(adapter, lostAt));
          if (gaps) this.unsubscribeGaps.push(gaps);
          await adapter.start((event) => this.dispatch(adapter, event), this.controller.signal);
          this.logger.info({ platform: adapter.platform }, 'channel adapter connected');
          void this.catchUp.run(adapter, startedAt);
        } catch (error) {
          this.logFailure(`start ${adapter.platform}`, error);
        }
      }),
    );
    // Turns a crash or stop left unfinished are settled once the platforms can be written to (ADR 0013).
    if (!this.stopped) await settleInterruptedTurns(this.recoveryDeps());
  }

  private recoveryDeps(): InterruptedTurnsDeps {
    const { manager, stores, config } = this.deps;
    const base = { manager, stores, router: this.router, adapters: this.adapters, desk: this.desk, logger: this.logger, signal: this.controller.signal };
    return { ...base, resume: config.gateway.resume_interrupted, conversations: this.conversations };
  }

  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    this.conversations.stop();
    clearInterval(this.sweepTimer);
    clearInterval(this.pruneTimer);
    for (const unsubscribe of this.unsubscribeGaps.splice(0)) unsubscribe();
    try {
      this.unsubscribeForms?.();
      this.forms.stop();
      // Events stop first (Slack then sends them to the other instances), replies go on while the renderers drain.
      await Promise.all([...this.adapters.values()].map((adapter) => stopInbound(adapter).catch((error: unknown) => this.logFailure('adapter stop inbound', error))));
      // An event already claimed in the ledger is handed to its workstream (thread, route, journalled turn), or it is lost.
      const unfinished = await this.handling.settle(STOP_GRACE_MS);
      if (unfinished > 0) this.logger.warn({ unfinished }, 'inbound events still being handled when the stop grace ended');
      // Before the adapters stop: a live message being posted right now is recorded, so the restart can edit it.
      await this.subs.drainAll(STOP_GRACE_MS);
      await Promise.all([...this.adapters.values()].map((adapter) => adapter.stop().catch((error: unknown) => this.logFailure('adapter stop', error))));
    } finally {
      this.controller.abort();
    }
  }

  status(): GatewayStatus {
    const adapters: Record<string, AdapterState> = {};
    for (const [platform, adapter] of this.adapters) adapters[platform] = adapter.state();
    return { adapters, workstreams: this.subs.size };
  }

  deliver(wsId: string, content: string | ContentPart[], options: SendOptions, target?: RenderTarget): Promise<boolean> {
    return this.conversations.deliver(wsId, content, options, target);
  }

  renderWhile<T>(wsId: string, work: () => Promise<T>): Promise<T> {
    return this.conversations.renderWhile(wsId, work);
  }

  /** Settles a workstream taken over from a dead instance, as a restart would (ADR 0013, 0021). */
  async settleTakenOver(wsId: string): Promise<void> {
    await settleInterruptedTurns(this.recoveryDeps(), wsId);
  }

  /** `reclaim`: from catch-up (see `InboundLedger.admit`). */
  private dispatch(adapter: ChannelAdapter, event: InboundEvent, reclaim = false): Promise<void> {
    return this.stopped ? refuseWhileStopping(event) : this.handling.track(this.handle(adapter, event, reclaim));
  }

  private async handle(adapter: ChannelAdapter, event: InboundEvent, reclaim: boolean): Promise<void> {
    // The dedup ledger, before any work: a replay, a retry or a catch-up overlap stops here.
    if (!(await this.ledger.admit(adapter.platform, event, reclaim))) return;
    try {
      await this.handleAdmitted(adapter, event);
    } finally {
      // A ledger row no message write took (ignored, refused, failed) is written now.
      await this.ledger.settle(event);
    }
  }

  private async handleAdmitted(adapter: ChannelAdapter, event: InboundEvent): Promise<void> {
    try {
      switch (event.type) {
        case 'message':
          await this.messages.onMessage(adapter, event);
          return;
        case 'command':
          await this.commands.handle(adapter, event);
          return;
        case 'action':
          await this.desk.onAction(adapter, event);
          return;
        case 'form':
          await this.forms.onForm(adapter, event);
          return;
        case 'suggest':
          await event.respond(this.models.suggest(event.query));
          return;
        case 'rate-limited':
          this.subs.byChannelId(adapter.platform, event.channelId)?.renderer.slowDown(event.retryAfterMs);
          return;
      }
    } catch (error) {
      this.logFailure(`handle ${event.type}`, error);
      if (isInteraction(event)) await event.respond.reply('Something went wrong; please try again.');
    }
  }

  private logFailure(what: string, error: unknown): void {
    this.logger.error({ error: describeError(error) }, `${what} failed`);
  }
}
