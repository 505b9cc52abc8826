/**
 * Hands messages to workstreams rendered into their threads: attachments saved first, the binding made before the
 * send (so no event is missed), the queue's answer shown as a reaction, and the message's inbound ledger row written
 * when the message was not stored with it (InboundLedger.take).
 */
import type { ContentPart } from '../agent/messages.js';
import type { SendOptions, SendOutcome, Workstream } from '../agent/workstream-api.js';
import type { ChannelAdapter, InboundAttachment } from '../channels/channel-adapter.js';
import type { Logger } from '../shared/logger.js';
import type { AttachmentIntake } from './attachments/attachment-intake.js';
import { isRemote } from './cluster/remote-workstream.js';
import type { InboundLedger } from './inbound-ledger.js';
import type { Router } from './router.js';
import type { Subscriptions } from './subscriptions.js';

export interface ThreadDeliveryDeps {
  intake: AttachmentIntake;
  subs: Subscriptions;
  ledger: InboundLedger;
  router: Router;
  adapters: ReadonlyMap<string, ChannelAdapter>;
  logger: Logger;
  signal: AbortSignal;
  stopped(): boolean;
}

export class ThreadDelivery {
  constructor(private readonly deps: ThreadDeliveryDeps) {}

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
    const binding = this.deps.subs.bind(ws, adapter, threadId);
    this.deps.subs.hold(binding);
    try {
      const outcome = await ws.send(content, options);
      const reaction = outcome.status === 'refused' ? 'refused' : outcome.queued ? 'queued' : undefined;
      if (reaction === 'refused') this.deps.logger.info({ wsId: ws.wsId, limit: outcome.status === 'refused' ? outcome.limit : 0 }, 'message refused: the queue is full');
      if (reaction !== undefined && messageId !== undefined) await adapter.react?.(threadId, messageId, reaction, this.deps.signal);
      return outcome;
    } finally {
      this.deps.subs.unhold(binding);
    }
  }

  /**
   * Restores a workstream (after eviction or a restart) and renders it into its home thread while the caller
   * works; resolves with the function that ends that hold (the binding stays while the workstream is busy).
   */
  async ensureRendered(wsId: string): Promise<(() => void) | undefined> {
    const ws = await this.deps.router.open(wsId);
    // Run by another instance (ADR 0021): it renders there.
    if (ws && isRemote(ws)) return undefined;
    // Rendering somewhere already (a DM answering a notification reply): it stays there.
    const live = ws ? this.deps.subs.get(wsId) : undefined;
    if (live && live.ws === ws && !this.deps.stopped()) {
      this.deps.subs.hold(live);
      return () => this.deps.subs.unhold(live);
    }
    const home = await this.deps.router.homeOf(wsId);
    const adapter = home ? this.deps.adapters.get(home.platform) : undefined;
    if (!ws || !home || !adapter || this.deps.stopped()) return undefined;
    const binding = this.deps.subs.bind(ws, adapter, home.channelId);
    this.deps.subs.hold(binding);
    return () => this.deps.subs.unhold(binding);
  }
}
