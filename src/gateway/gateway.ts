/** Wires channel adapters ↔ router ↔ workstreams; owns the gateway's lifecycle and per-thread ordering. */
import { isClaimLost } from '../shared/errors.js';
import { setMaxListeners } from 'node:events';
import type { ContentPart } from '../agent/messages.js';
import type { ApprovalDecisionInput, ResolveOutcome, SendOptions } from '../agent/workstream-api.js';
import type { AdapterState, ChannelAdapter, InboundEvent } from '../channels/channel-adapter.js';
import { describeError } from '../shared/errors.js';
import type { Logger } from '../shared/logger.js';
import { stopInbound } from './channel-features.js';
import { LEDGER_MARGIN_MS } from './inbound-ledger.js';
import { createGatewayParts, type GatewayParts } from './gateway-parts.js';
import { settleInterruptedTurns, type InterruptedTurnsDeps } from './interrupted-turns.js';
import { isInteraction, refuseWhileStopping } from './interaction-events.js';
import type { RenderTarget } from './cluster/handoffs.js';
import { KeyedSerialLanes } from '../shared/serial-lane.js';
import { InFlight } from '../shared/in-flight.js';
import type { Gateway, GatewayDeps, GatewayStatus } from './gateway-types.js';

export type { Gateway, GatewayDeps, GatewayStatus } from './gateway-types.js';

/** How long a stop waits for inbound events being handled, then for the platform calls of live answers (ADR 0013). */
const STOP_GRACE_MS = 3000;

export function createGateway(deps: GatewayDeps): Gateway {
  return new ChannelGateway(deps);
}

class ChannelGateway implements Gateway {
  private readonly parts: GatewayParts;
  /** Routing order per thread (arrival order); not a queue of turns: the workstream owns that, with its bound (ADR 0006). */
  private readonly lanes = new KeyedSerialLanes();
  private readonly adapters: Map<string, ChannelAdapter>;
  /** Inbound events being handled; a stop lets them finish (within its grace) before the drain. */
  private readonly handling = new InFlight();
  private readonly controller = new AbortController();
  private readonly logger: Logger;
  private readonly now: () => number;
  private stopped = false;
  /** The ledger's pruning. */
  private readonly timers: NodeJS.Timeout[] = [];
  /** Forms, authorizations and the adapters' gap signals, ended by a stop. */
  private readonly unsubscribes: Array<() => void> = [];

  constructor(private readonly deps: GatewayDeps) {
    this.logger = deps.logger.child({ component: 'gateway' });
    // Every in-flight platform call listens on this signal; hundreds of threads are normal.
    setMaxListeners(0, this.controller.signal);
    this.now = deps.options?.now ?? Date.now;
    this.adapters = new Map(deps.adapters.map((adapter) => [adapter.platform, adapter]));
    const base = {
      logger: this.logger,
      now: this.now,
      adapters: this.adapters,
      lanes: this.lanes,
      signal: this.controller.signal,
    };
    this.parts = createGatewayParts(deps, {
      ...base,
      dispatch: (adapter, event, reclaim) => this.dispatch(adapter, event, reclaim),
    });
  }

  async start(signal: AbortSignal): Promise<void> {
    signal.addEventListener('abort', () => void this.stop().catch((error: unknown) => this.logFailure('stop', error)), {
      once: true,
    });
    if (this.adapters.size === 0) this.logger.warn('no channel adapter is enabled');
    if (this.stopped) return;
    const { forms, ledger, router, catchUp } = this.parts;
    this.unsubscribes.push(forms.subscribe(this.deps.elicitations, this.deps.authorizations));
    this.timers.push(ledger.startPruning(this.deps.config.gateway.catch_up_hours * 3_600_000 + LEDGER_MARGIN_MS));
    // Everything recorded before this moment was handled by an earlier run; what came after is caught up below.
    const startedAt = this.now();
    await Promise.all([ledger.loadFloors([...this.adapters.keys()]), router.startDirectory(this.controller.signal)]);
    // A stop meanwhile has stopped the adapters: starting them now would connect after the stop.
    if (this.stopped) return;
    await Promise.all(
      [...this.adapters.values()].map(async (adapter) => {
        try {
          const gaps = adapter.features.history?.onGap((lostAt) => void catchUp.run(adapter, lostAt));
          if (gaps) this.unsubscribes.push(gaps);
          await adapter.start((event) => this.dispatch(adapter, event), this.controller.signal);
          this.logger.info({ platform: adapter.platform }, 'channel adapter connected');
          void catchUp.run(adapter, startedAt);
        } catch (error) {
          // A start the stop cut short is no failure.
          if (this.stopped) this.logger.info({ platform: adapter.platform }, 'channel start ended by the stop');
          else this.logFailure(`start ${adapter.platform}`, error);
        }
      }),
    );
    // Turns a crash or stop left unfinished are settled once the platforms can be written to (ADR 0013).
    if (!this.stopped) await settleInterruptedTurns(this.recoveryDeps());
  }

  private recoveryDeps(): InterruptedTurnsDeps {
    const { manager, stores, config } = this.deps;
    const { router, desk, conversations } = this.parts;
    const base = {
      manager,
      stores,
      router,
      adapters: this.adapters,
      desk,
      logger: this.logger,
      signal: this.controller.signal,
    };
    return { ...base, resume: config.gateway.resume_interrupted, conversations };
  }

  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    this.parts.conversations.stop();
    for (const timer of this.timers.splice(0)) clearInterval(timer);
    for (const unsubscribe of this.unsubscribes.splice(0)) unsubscribe();
    try {
      this.parts.forms.stop();
      // Events stop first (Slack then sends them to the other instances), replies go on while the renderers drain.
      await Promise.all(
        [...this.adapters.values()].map((adapter) =>
          stopInbound(adapter).catch((error: unknown) => this.logFailure('adapter stop inbound', error)),
        ),
      );
      // An event already claimed in the ledger is handed to its workstream (thread, route, journalled turn), or it is lost.
      const unfinished = await this.handling.settle(STOP_GRACE_MS);
      if (unfinished > 0)
        this.logger.warn({ unfinished }, 'inbound events still being handled when the stop grace ended');
      // Before the adapters stop: a live message being posted right now is recorded, so the restart can edit it.
      await this.parts.subs.drainAll(STOP_GRACE_MS);
      await Promise.all(
        [...this.adapters.values()].map((adapter) =>
          adapter.stop().catch((error: unknown) => this.logFailure('adapter stop', error)),
        ),
      );
    } finally {
      this.controller.abort();
    }
  }

  status(): GatewayStatus {
    const adapters: Record<string, AdapterState> = {};
    for (const [platform, adapter] of this.adapters) adapters[platform] = adapter.state();
    return { adapters, workstreams: this.parts.subs.size };
  }

  deliver(
    wsId: string,
    content: string | ContentPart[],
    options: SendOptions,
    target?: RenderTarget,
  ): Promise<boolean> {
    return this.parts.conversations.deliver(wsId, content, options, target);
  }

  decideApproval(approvalId: string, decision: ApprovalDecisionInput): Promise<ResolveOutcome> {
    return this.parts.desk.decide(approvalId, decision);
  }

  renderWhile<T>(wsId: string, work: () => Promise<T>): Promise<T> {
    return this.parts.conversations.renderWhile(wsId, work);
  }

  /** Settles a workstream taken over from a dead instance, as a restart would (ADR 0013, 0021). */
  async settleTakenOver(wsId: string): Promise<void> {
    await settleInterruptedTurns(this.recoveryDeps(), wsId);
  }

  /** `reclaim`: from catch-up (see `InboundLedger.admit`). */
  private dispatch(adapter: ChannelAdapter, event: InboundEvent, reclaim = false): Promise<void> {
    // While stopping, a person waiting on an interaction is told to try again. A message is still handled: the
    // platform delivered it (bolt acknowledged it to Slack before our listener ran), nothing delivers it again, and the
    // stop waits for it like any event in flight, then hands its turn over.
    if (this.stopped && isInteraction(event)) return refuseWhileStopping(event);
    return this.handling.track(this.handle(adapter, event, reclaim));
  }

  private async handle(adapter: ChannelAdapter, event: InboundEvent, reclaim: boolean): Promise<void> {
    // The dedup ledger, before any work: a replay, a retry or a catch-up overlap stops here.
    if (
      !(await this.parts.ledger.admit(adapter.platform, event, {
        reclaim,
        ordered: adapter.capabilities.spreadsEvents === true,
      }))
    )
      return;
    try {
      await this.handleAdmitted(adapter, event);
    } finally {
      // A ledger row no message write took (ignored, refused, failed) is written now.
      await this.parts.ledger.settle(event);
    }
  }

  private async handleAdmitted(adapter: ChannelAdapter, event: InboundEvent): Promise<void> {
    const { messages, commands, desk, forms, models, subs } = this.parts;
    try {
      switch (event.type) {
        case 'message':
          await messages.onMessage(adapter, event);
          return;
        case 'command':
          await commands.handle(adapter, event);
          return;
        case 'action':
          await desk.onAction(adapter, event);
          return;
        case 'form':
          await forms.onForm(adapter, event);
          return;
        case 'suggest':
          await event.respond(models.suggest(event.query));
          return;
        case 'rate-limited':
          subs.byChannelId(adapter.platform, event.channelId)?.renderer.slowDown(event.retryAfterMs);
          return;
      }
    } catch (error) {
      this.logFailure(`handle ${event.type}`, error);
      if (isInteraction(event)) await event.respond.reply('Something went wrong; please try again.');
    }
  }

  private logFailure(what: string, error: unknown): void {
    // Another instance took the message's claim (this one looked dead to it): it answers; nothing failed here.
    if (isClaimLost(error)) this.logger.info(`${what}: another instance took the message over`);
    else this.logger.error({ error: describeError(error) }, `${what} failed`);
  }
}
