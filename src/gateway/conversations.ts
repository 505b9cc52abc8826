/**
 * The conversations service: binds a workstream to the thread that shows it, hands it content (a person's message, a
 * watch result, a message handed over by another instance) and keeps it rendered while someone acts on it. Passed to
 * the gateway's parts as an object (`ConversationRendering`), never as closures back into the gateway. A message not
 * stored with its inbound ledger row (refused, failed, handed to another instance) gets that row written here
 * (InboundLedger.take).
 */
import type { ContentPart } from '../agent/messages.js';
import type { SendOptions, SendOutcome, Workstream } from '../agent/workstream-api.js';
import type { ChannelAdapter, InboundAttachment } from '../channels/channel-adapter.js';
import type { Logger } from '../shared/logger.js';
import type { KeyedSerialLanes } from '../shared/serial-lane.js';
import type { AttachmentIntake } from './attachments/attachment-intake.js';
import type { RenderTarget } from './cluster/handoffs.js';
import type { InboundLedger } from './inbound-ledger.js';
import { isRemote } from './cluster/remote-workstream.js';
import type { Router } from './router.js';
import type { Subscriptions } from './subscriptions.js';

/** What approvals, commands and the recovery of interrupted turns need: a workstream shown while they act on it. */
export interface ConversationRendering {
  /**
   * Restores a workstream (after eviction or a restart) and renders it into its home thread while the caller works;
   * resolves with the function that ends that hold (the binding stays while the workstream is busy).
   */
  ensureRendered(wsId: string): Promise<(() => void) | undefined>;
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
    adapter: ChannelAdapter, threadId: string, ws: Workstream, text: string, messageId: string | undefined, options: SendOptions = {},
    attachments: readonly InboundAttachment[] = [],
  ): Promise<SendOutcome> {
    let outcome: SendOutcome | undefined;
    try {
      const content = await this.deps.intake.contentFor(adapter, threadId, ws.wsId, text, attachments, this.deps.signal);
      outcome = await this.sendContent(adapter, threadId, ws, content, messageId, options);
      return outcome;
    } finally {
      // Not stored with a message (refused, failed, handed to another instance): the ledger row is written now.
      if (options.receipt !== undefined && (outcome?.status !== 'accepted' || isRemote(ws))) await this.deps.ledger.release(options.receipt);
    }
  }

  /** Hands content to the workstream, rendered into the thread; a workstream run by another instance gets it there. */
  async sendContent(
    adapter: ChannelAdapter, threadId: string, ws: Workstream, content: string | ContentPart[], messageId: string | undefined, options: SendOptions,
  ): Promise<SendOutcome> {
    if (isRemote(ws)) return ws.handOff(content, options, { platform: adapter.platform, channelId: threadId, ...(messageId === undefined ? {} : { messageId }) });
    const { subs, logger } = this.deps;
    const binding = subs.bind(ws, adapter, threadId);
    subs.hold(binding);
    try {
      const outcome = await ws.send(content, options);
      const reaction = outcome.status === 'refused' ? 'refused' : outcome.queued ? 'queued' : undefined;
      if (reaction === 'refused') logger.info({ wsId: ws.wsId, limit: outcome.status === 'refused' ? outcome.limit : 0 }, 'message refused: the queue is full');
      if (reaction !== undefined && messageId !== undefined) await adapter.react(threadId, messageId, reaction, this.deps.signal);
      return outcome;
    } finally {
      subs.unhold(binding);
    }
  }

  /**
   * Content no person typed here (a watch result, a message handed over by another instance), into the workstream's
   * thread or `target`, in order with the thread's own messages. False when the workstream is gone.
   */
  async deliver(wsId: string, content: string | ContentPart[], options: SendOptions, target?: RenderTarget): Promise<boolean> {
    const { router, adapters, lanes, logger } = this.deps;
    const ws = await router.open(wsId);
    if (!ws) return false;
    const home = target ?? (await router.homeOf(wsId));
    const adapter = home ? adapters.get(home.platform) : undefined;
    // Without a thread to show it in (terminal workstream, platform not configured) the turn still runs and is stored.
    const outcome =
      !home || !adapter || this.stopped
        ? await ws.send(content, options)
        : await lanes.run(`${home.platform}:${home.channelId}`, () => this.sendContent(adapter, home.channelId, ws, content, target?.messageId, options));
    if (outcome.status === 'refused') logger.warn({ wsId, limit: outcome.limit }, 'message refused: the workstream queue is full');
    return true;
  }

  async ensureRendered(wsId: string): Promise<(() => void) | undefined> {
    const { router, subs, adapters } = this.deps;
    const ws = await router.open(wsId);
    // Run by another instance (ADR 0021): it renders there.
    if (ws && isRemote(ws)) return undefined;
    // Rendering somewhere already (a DM answering a notification reply): it stays there.
    const live = ws ? subs.get(wsId) : undefined;
    if (live && live.ws === ws && !this.stopped) {
      subs.hold(live);
      return () => subs.unhold(live);
    }
    const home = await router.homeOf(wsId);
    const adapter = home ? adapters.get(home.platform) : undefined;
    if (!ws || !home || !adapter || this.stopped) return undefined;
    const binding = subs.bind(ws, adapter, home.channelId);
    subs.hold(binding);
    return () => subs.unhold(binding);
  }

  /** Runs `work` with the workstream rendered into its home thread. */
  async renderWhile<T>(wsId: string, work: () => Promise<T>): Promise<T> {
    const release = await this.ensureRendered(wsId);
    try {
      return await work();
    } finally {
      release?.();
    }
  }
}
