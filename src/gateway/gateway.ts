/** Wires channel adapters ↔ router ↔ workstreams; owns the gateway's lifecycle and per-thread ordering. */
import { SPAN, withSpan } from '../shared/telemetry.js';
import { setMaxListeners } from 'node:events';
import type { ContentPart } from '../agent/messages.js';
import type { SendOptions, Workstream } from '../agent/workstream-api.js';
import type { AdapterState, ChannelAdapter, InboundAttachment, InboundEvent, ThreadOrigin } from '../channels/channel-adapter.js';
import { truncate } from '../channels/format/truncate.js';
import { describeError } from '../shared/errors.js';
import type { Logger } from '../shared/logger.js';
import { ApprovalDesk } from './approvals.js';
import { AttachmentIntake } from './attachments/attachment-intake.js';
import { CatchUp } from './catch-up.js';
import { InboundLedger, LEDGER_MARGIN_MS, ledgerOptions } from './inbound-ledger.js';
import { isClustered } from './cluster/cluster-mode.js';
import { CommandHandler } from './commands.js';
import { ConversationStarts } from './conversation-start.js';
import { DirectConversations } from './direct-conversations.js';
import { NotificationReplies } from './notification-replies.js';
import { OpeningThreads } from './opening-threads.js';
import { ElicitationDesk } from './elicitations.js';
import { settleInterruptedTurns, type InterruptedTurnsDeps } from './interrupted-turns.js';
import { admitMessage, InboundLimits } from './inbound-limits.js';
import { ModelChoice } from './model-choice.js';
import { Router, type LinkedUser } from './router.js';
import { Subscriptions, timingOf } from './subscriptions.js';
import { ThreadDelivery } from './thread-delivery.js';
import { LinkHints } from './link-hints.js';
import { speakerText } from './speaker-text.js';
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

type MessageEvent = Extract<InboundEvent, { type: 'message' }>;

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
  private readonly delivery: ThreadDelivery;
  private readonly directs: DirectConversations;
  private readonly replies: NotificationReplies;
  private unsubscribeForms: (() => void) | undefined;
  private readonly adapters: Map<string, ChannelAdapter>;
  private readonly hints: LinkHints;
  /** Threads being opened (thread, route, first message); a message in a brand-new thread waits for them. */
  private readonly opening = new OpeningThreads();
  private readonly starts: ConversationStarts;
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
    this.hints = new LinkHints(this.now, this.controller.signal);
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
    this.desk = new ApprovalDesk({
      stores: deps.stores, manager: deps.manager, router: this.router, logger: this.logger, adapters: this.adapters, signal,
      ensureRendered: (wsId) => this.delivery.ensureRendered(wsId),
    });
    const intake = new AttachmentIntake({
      workspaceDir: deps.config.agent.workspace_dir, maxBytes: deps.config.gateway.max_attachment_mb * 1024 * 1024, logger: this.logger,
    });
    this.delivery = new ThreadDelivery({
      intake, subs: this.subs, ledger: this.ledger, router: this.router, adapters: this.adapters, logger: this.logger, signal, stopped: () => this.stopped,
    });
    this.forms = new ElicitationDesk({ stores: deps.stores, router: this.router, logger: this.logger, adapters: this.adapters, signal, now: this.now });
    this.models = new ModelChoice(deps.config);
    this.starts = new ConversationStarts({
      router: this.router, opening: this.opening, signal,
      sendToThread: (adapter, threadId, ws, text, attachments, options) => this.delivery.sendToThread(adapter, threadId, ws, text, undefined, options, attachments),
    });
    const { max_message_chars: maxChars, user_rate_limit: limit, user_rate_window_s: windowS } = deps.config.gateway;
    this.limits = new InboundLimits({ maxChars, limit, windowMs: windowS * 1000, now: this.now });
    this.commands = new CommandHandler({
      stores: deps.stores, manager: deps.manager, router: this.router, signal, now: this.now, models: this.models, limits: this.limits, authorizations: deps.authorizations,
      startConversation: (adapter, channelId, name, requester, ownerUserId, text, modelAlias) =>
        this.startConversation(adapter, channelId, name, { requester }, ownerUserId, text, modelAlias),
      ensureRendered: (wsId) => this.delivery.ensureRendered(wsId),
      cancelCards: (approvalIds) => this.desk.cancelCards(approvalIds), mcp: deps.mcp,
    });
    const conversationDeps = {
      stores: deps.stores, router: this.router, logger: this.logger, signal, now: this.now,
      send: async (adapter: ChannelAdapter, channelId: string, ws: Workstream, text: string, event: MessageEvent) =>
        (await this.admit(adapter, event))
          ? this.delivery.sendToThread(adapter, channelId, ws, await this.spoken(adapter, ws, event, text), event.messageId, this.receiptOf(event), event.attachments)
          : undefined,
      hintUnlinked: (adapter: ChannelAdapter, event: MessageEvent) => this.hints.hint(adapter, event),
    };
    this.directs = new DirectConversations({ ...conversationDeps, idleHours: deps.config.gateway.dm_idle_hours });
    this.replies = new NotificationReplies({ ...conversationDeps, replyDays: deps.config.gateway.notify_reply_days });
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
          const gaps = adapter.history?.onGap((lostAt) => void this.catchUp.run(adapter, lostAt));
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
    return { ...base, resume: config.gateway.resume_interrupted, ensureRendered: (wsId) => this.delivery.ensureRendered(wsId) };
  }

  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    clearInterval(this.sweepTimer);
    clearInterval(this.pruneTimer);
    for (const unsubscribe of this.unsubscribeGaps.splice(0)) unsubscribe();
    try {
      this.unsubscribeForms?.();
      this.forms.stop();
      // Events stop first (Slack then sends them to the other instances), replies go on while the renderers drain.
      await Promise.all([...this.adapters.values()].map((adapter) => adapter.stopInbound?.().catch((error: unknown) => this.logFailure('adapter stop inbound', error))));
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

  async deliver(wsId: string, content: string | ContentPart[], options: SendOptions, target?: RenderTarget): Promise<boolean> {
    const ws = await this.router.open(wsId);
    if (!ws) return false;
    const home = target ?? (await this.router.homeOf(wsId));
    const adapter = home ? this.adapters.get(home.platform) : undefined;
    // Without a thread to show it in (terminal workstream, platform not configured) the turn still runs and is stored.
    const outcome =
      !home || !adapter || this.stopped
        ? await ws.send(content, options)
        : await this.lanes.run(`${home.platform}:${home.channelId}`, () => this.delivery.sendContent(adapter, home.channelId, ws, content, target?.messageId, options));
    if (outcome.status === 'refused') this.logger.warn({ wsId, limit: outcome.limit }, 'message refused: the workstream queue is full');
    return true;
  }

  async renderWhile<T>(wsId: string, work: () => Promise<T>): Promise<T> {
    const release = await this.delivery.ensureRendered(wsId);
    try {
      return await work();
    } finally {
      release?.();
    }
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
          await this.onMessage(adapter, event);
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

  private async onMessage(adapter: ChannelAdapter, event: MessageEvent): Promise<void> {
    const { conversation } = event;
    // A channel message matters when it mentions the bot or replies to a message (perhaps a notification).
    if (conversation.kind === 'channel' && !event.mentioned && event.replyTo === undefined) return;
    // One ordered lane per thread; mentions in a channel only need ordering per author (each opens its own thread).
    const key = conversation.kind === 'thread' ? `${adapter.platform}:${conversation.channelId}` : `${adapter.platform}:${conversation.channelId}:${event.user.id}`;
    const route = (): Promise<void> => withSpan(SPAN.route, { 'sandpiper.platform': adapter.platform }, () => this.routeMessage(adapter, event));
    await this.lanes.run(key, route).catch((error: unknown) => this.onMessageFailed(adapter, event, error));
  }

  private async routeMessage(adapter: ChannelAdapter, event: MessageEvent): Promise<void> {
    const { conversation } = event;
    if (conversation.kind === 'direct') return this.routeDirect(adapter, event);
    const wsId = conversation.kind === 'thread' ? await this.threadRoute(adapter.platform, conversation.channelId) : undefined;
    if (wsId === undefined && event.replyTo !== undefined && (await this.replies.handle(adapter, event))) return;
    // Not one of our threads (nor the thread under a notification), or a channel message without a mention.
    if (conversation.kind === 'thread' ? wsId === undefined : !event.mentioned) return;
    const user = await this.router.linkedUser(adapter.platform, event.user.id);
    if (!user) return this.hints.hint(adapter, event);
    if (wsId === undefined) return (await this.admit(adapter, event)) ? this.startFromMention(adapter, event, user.userId) : undefined;
    const ws = await this.router.open(wsId);
    if (!ws) return (await this.admit(adapter, event)) ? this.reactivate(adapter, event, wsId, user) : undefined;
    if (!this.router.mayWrite(ws, user, adapter.threadParticipants)) return this.hints.notOwner(adapter, event);
    if (!(await this.admit(adapter, event))) return;
    await this.sendFromThread(adapter, ws, user, event);
  }

  /** A message in a thread: the owner's words as they are, a participant's in a shared thread fenced with their name. */
  private async sendFromThread(adapter: ChannelAdapter, ws: Workstream, user: LinkedUser, event: MessageEvent): Promise<void> {
    const text = user.userId === ws.ownerUserId ? event.text : speakerText(ws.ownerUserId, user, event.user, event.text, 'message');
    await this.delivery.sendToThread(adapter, event.conversation.channelId, ws, text, event.messageId, this.receiptOf(event), event.attachments);
  }

  /** The message's ledger row when it is to be written with the message (single instance, see InboundLedger.take). */
  private receiptOf(event: MessageEvent): SendOptions {
    const receipt = this.ledger.take(event);
    return receipt === undefined ? {} : { receipt };
  }

  /** A DM or a notification reply: the owner's own words as they are, anyone else's fenced as data (`speaker-text.ts`). */
  private async spoken(adapter: ChannelAdapter, ws: Workstream, event: MessageEvent, text: string): Promise<string> {
    const writer = await this.router.linkedUser(adapter.platform, event.user.id);
    if (writer?.userId === ws.ownerUserId) return text;
    return speakerText(ws.ownerUserId, writer, event.user, text, event.replyTo === undefined ? 'message' : 'notification_reply');
  }

  /** A reply to a notification goes to the notification's workstream; any other DM to the DM conversation. */
  private async routeDirect(adapter: ChannelAdapter, event: MessageEvent): Promise<void> {
    if (!(await this.replies.handle(adapter, event))) await this.directs.route(adapter, event);
  }

  /** The inbound limits (ADR 0018): false when the message is refused (the writer was told, never silently). */
  private admit(adapter: ChannelAdapter, event: MessageEvent): Promise<boolean> {
    return admitMessage(this.limits, adapter, event, this.controller.signal, this.logger);
  }

  private async startFromMention(adapter: ChannelAdapter, event: MessageEvent, userId: string): Promise<void> {
    // A mention that only carries files starts with the files (named in the message), not an invented greeting.
    const firstFile = event.attachments?.[0]?.name;
    const text = event.text || (firstFile === undefined ? 'Hello' : '');
    const name = truncate((text || firstFile || 'Hello').replace(/\s+/g, ' '), 100);
    const origin = { fromMessageId: event.messageId, requester: event.user };
    const send = this.receiptOf(event);
    try {
      await this.startConversation(adapter, event.conversation.channelId, name, origin, userId, text, undefined, event.attachments, send);
    } catch (error) {
      // Not started: the ledger row is written now (again, if the message's write already took it: ignored).
      if (send.receipt !== undefined) await this.ledger.release(send.receipt);
      throw error;
    }
  }

  /**
   * A message in a thread whose workstream is closed (say so) or was deleted (start a new one in the same thread, owned
   * by the thread's original owner; a writer who may not write to it changes nothing).
   */
  private async reactivate(adapter: ChannelAdapter, event: MessageEvent, oldWsId: string, user: LinkedUser): Promise<void> {
    const threadId = event.conversation.channelId;
    const name = truncate((event.text || 'Hello').replace(/\s+/g, ' '), 100);
    const outcome = await this.router.reactivate(adapter.platform, threadId, oldWsId, user, name, adapter.threadParticipants);
    if (outcome.status === 'not-allowed') return;
    if (outcome.status === 'closed') {
      await adapter.post(threadId, { kind: 'notice', code: 'closed' }, this.controller.signal);
      return;
    }
    const ws = outcome.ws;
    this.logger.info({ platform: adapter.platform, oldWsId, wsId: ws.wsId }, 'thread routed to a new workstream (the old one was deleted)');
    await adapter.post(threadId, { kind: 'notice', code: 'reactivated' }, this.controller.signal);
    await this.delivery.sendToThread(adapter, threadId, ws, event.text || 'Hello', event.messageId, this.receiptOf(event), event.attachments);
  }

  /** Opens a thread, routes it to a new workstream and sends the first message; tracked so follow-ups wait for it. */
  private startConversation(
    adapter: ChannelAdapter, channelId: string, name: string, origin: ThreadOrigin, ownerUserId: string, text: string, modelAlias: string | undefined,
    attachments: readonly InboundAttachment[] = [], send: SendOptions = {},
  ): Promise<void> {
    const model = modelAlias ?? this.models.channelDefault(adapter.platform, channelId);
    return this.starts.start(adapter, { channelId, name, origin, ownerUserId, text, modelAlias: model, attachments, send });
  }

  /** The route of a thread; a message that races the creation of its own thread waits for the creations in flight. */
  private threadRoute(platform: string, threadId: string): Promise<string | undefined> {
    return this.opening.routeOf(() => this.router.routeFor(platform, threadId));
  }

  /** A message could not be handled: logged, and the writer is told in the conversation instead of getting silence. */
  private onMessageFailed(adapter: ChannelAdapter, event: MessageEvent, error: unknown): void {
    this.logFailure('message', error);
    const notice = { kind: 'error', message: 'Your message could not be handled; please try again.' } as const;
    void adapter.post(event.conversation.channelId, notice, this.controller.signal).catch((postError: unknown) => this.logFailure('error notice', postError));
  }

  private logFailure(what: string, error: unknown): void {
    this.logger.error({ error: describeError(error) }, `${what} failed`);
  }
}
