/**
 * The conversations service: binds a workstream to the thread that shows it, hands it content (a person's message, a
 * watch result, a message handed over by another instance) and keeps it rendered while someone acts on it. Passed to
 * the gateway's parts as an object (`ConversationRendering`), never as closures back into the gateway. A message not
 * stored with its inbound ledger row (refused, failed, handed to another instance) gets that row written here
 * (InboundLedger.take).
 */
import type { ContentPart } from '../agent/messages.js';
import type { SendOptions, SendOutcome } from '../agent/workstream-api.js';
import type { ChannelAdapter, InboundAttachment } from '../channels/channel-adapter.js';
import type { Logger } from '../shared/logger.js';
import type { KeyedSerialLanes } from '../shared/serial-lane.js';
import type { AttachmentIntake } from './attachments/attachment-intake.js';
import type { RenderTarget } from './cluster/handoffs.js';
import type { InboundLedger } from './inbound-ledger.js';
import type { Placement } from './cluster/coordination.js';
import type { Router } from './router.js';
import type { Binding, Subscriptions } from './subscriptions.js';

/** What approvals, commands and the recovery of interrupted turns need: a workstream shown while they act on it. */
export interface ConversationRendering {
  /**
   * Restores a workstream (after eviction or a restart) and runs `work` with it rendered into its home thread (or
   * where it renders already); the binding then stays until the workstream's `idle`. Run elsewhere (another instance),
   * without a thread, or while stopping: `work` runs unrendered.
   */
  renderWhile<T>(wsId: string, work: () => Promise<T>): Promise<T>;
}

export interface ConversationsDeps {
  router: Router;
  subs: Subscriptions;
  intake: AttachmentIntake;
  ledger: InboundLedger;
  adapters: ReadonlyMap<string, ChannelAdapter>;
  /** The gateway's per-thread routing lanes: content that no person typed goes in order with the thread's messages. */
  lanes: KeyedSerialLanes;
  logger: Logger;
  signal: AbortSignal;
}

export class Conversations implements ConversationRendering {
  private stopped = false;

  constructor(private readonly deps: ConversationsDeps) {}

  /** From now on nothing new is bound to a thread (the gateway is stopping); turns still run and are stored. */
  stop(): void {
    this.stopped = true;
  }

  /**
   * Binds the workstream to the thread (before sending, so no event is missed) and hands it the message. The
   * workstream answers whether it queued or refused it (its queue, its bound); the adapter shows that as a reaction.
   * Attachments are downloaded and saved into the workstream folder first (ADR 0017).
   */
  async sendToThread(
    adapter: ChannelAdapter,
    threadId: string,
    ws: Placement,
    text: string,
    messageId: string | undefined,
    options: SendOptions = {},
    attachments: readonly InboundAttachment[] = [],
  ): Promise<SendOutcome> {
    let outcome: SendOutcome | undefined;
    try {
      const content = await this.deps.intake.contentFor(
        adapter,
        threadId,
        ws.wsId,
        text,
        attachments,
        this.deps.signal,
      );
      outcome = await this.sendContent(adapter, threadId, ws, content, messageId, options);
      return outcome;
    } finally {
      // Not stored with a message (refused, failed, handed to another instance): the ledger row is written now.
      if (options.receipt !== undefined && (outcome?.status !== 'accepted' || ws.kind === 'remote'))
        await this.deps.ledger.release(options.receipt);
    }
  }

  /** Hands content to the workstream, rendered into the thread; a workstream run by another instance gets it there. */
  async sendContent(
    adapter: ChannelAdapter,
    threadId: string,
    placement: Placement,
    content: string | ContentPart[],
    messageId: string | undefined,
    options: SendOptions,
  ): Promise<SendOutcome> {
    if (placement.kind === 'remote') {
      return placement.handOff(content, options, {
        platform: adapter.platform,
        channelId: threadId,
        ...(messageId === undefined ? {} : { messageId }),
      });
    }
    const { ws } = placement;
    const { subs, logger } = this.deps;
    // Bound before sending, so no event is missed; kept until the send's outcome is shown.
    return subs.renderWhile(subs.bind(ws, adapter, threadId), async () => {
      const outcome = await ws.send(content, options);
      const reaction = outcome.status === 'refused' ? 'refused' : outcome.queued ? 'queued' : undefined;
      if (reaction === 'refused')
        logger.info(
          { wsId: ws.wsId, limit: outcome.status === 'refused' ? outcome.limit : 0 },
          'message refused: the queue is full',
        );
      if (reaction !== undefined && messageId !== undefined)
        await adapter.react(threadId, messageId, reaction, this.deps.signal);
      return outcome;
    });
  }

  /**
   * Content no person typed here (a watch result, a message handed over by another instance), into the workstream's
   * thread or `target`, in order with the thread's own messages. False when the workstream is gone.
   */
  async deliver(
    wsId: string,
    content: string | ContentPart[],
    options: SendOptions,
    target?: RenderTarget,
  ): Promise<boolean> {
    const { router, adapters, lanes, logger } = this.deps;
    const placement = await router.open(wsId);
    if (!placement) return false;
    const home = target ?? (await router.homeOf(wsId));
    const adapter = home ? adapters.get(home.platform) : undefined;
    // Without a thread to show it in (terminal workstream, platform not configured) the turn still runs and is stored.
    const outcome =
      !home || !adapter || this.stopped
        ? await (placement.kind === 'local'
            ? placement.ws.send(content, options)
            : placement.handOff(content, options, undefined))
        : await lanes.run(`${home.platform}:${home.channelId}`, () =>
            this.sendContent(adapter, home.channelId, placement, content, target?.messageId, options),
          );
    if (outcome.status === 'refused')
      logger.warn({ wsId, limit: outcome.limit }, 'message refused: the workstream queue is full');
    return true;
  }

  async renderWhile<T>(wsId: string, work: () => Promise<T>): Promise<T> {
    const binding = await this.bindingFor(wsId);
    return binding ? this.deps.subs.renderWhile(binding, work) : work();
  }

  /** The binding to render a workstream through: where it renders already, else its home thread. */
  private async bindingFor(wsId: string): Promise<Binding | undefined> {
    const { router, subs, adapters } = this.deps;
    const placement = await router.open(wsId);
    // Run by another instance (ADR 0021): it renders there.
    if (placement?.kind !== 'local' || this.stopped) return undefined;
    const { ws } = placement;
    // Rendering somewhere already (a DM answering a notification reply): it stays there.
    const live = subs.get(wsId);
    if (live && live.ws === ws) return live;
    const home = await router.homeOf(wsId);
    const adapter = home ? adapters.get(home.platform) : undefined;
    return home && adapter && !this.stopped ? subs.bind(ws, adapter, home.channelId) : undefined;
  }
}
