/**
 * Starts a conversation in a new thread (a mention, `/ask`). The first turn starts while the platform opens the
 * thread (ADR 0033): the model request overlaps the thread's round trip, the workstream's row and route commit once
 * the thread exists, and what the turn shows waits for the thread. When the thread cannot be opened, nothing is stored
 * or shown, and the caller reports the failure. A first message with attachments opens the thread first: its files
 * are saved before the turn starts, and a file that was skipped is named in the thread. So does a conversation
 * started while many threads are being opened (a burst): their thread round trips spread the work of starting the
 * turns over time, where starting them all at once would hold the event loop for the whole burst.
 */
import type { SendOptions, SendOutcome, Workstream } from '../agent/workstream-api.js';
import type { ChannelAdapter, InboundAttachment, ThreadOrigin } from '../channels/channel-adapter.js';
import { markHotPath } from '../shared/hot-path-marks.js';
import type { OpeningThreads } from './opening-threads.js';
import type { Router } from './router.js';
import type { Binding, Subscriptions } from './subscriptions.js';

/** Threads being opened beyond which a new conversation waits for its thread before its turn starts. */
export const MAX_OVERLAPPED_OPENINGS = 4;

export interface NewConversation {
  /** The channel the thread opens in. */
  channelId: string;
  name: string;
  origin: ThreadOrigin;
  ownerUserId: string;
  text: string;
  /** The model alias asked for, else the channel's default; undefined: the agent's default. */
  modelAlias: string | undefined;
  attachments: readonly InboundAttachment[];
  /** Options of the first message's send (its ledger row, `SendOptions.receipt`). */
  send?: SendOptions;
}

export interface ConversationStartDeps {
  router: Router;
  subs: Subscriptions;
  opening: OpeningThreads;
  signal: AbortSignal;
  /** Hands a message to a workstream rendered into an open thread (attachments saved first). */
  sendToThread(adapter: ChannelAdapter, threadId: string, ws: Workstream, text: string, attachments: readonly InboundAttachment[], options: SendOptions): Promise<SendOutcome>;
}

export class ConversationStarts {
  constructor(private readonly deps: ConversationStartDeps) {}

  /** Opens the thread and starts its workstream; tracked, so a message in the new thread waits for its route. */
  start(adapter: ChannelAdapter, conversation: NewConversation): Promise<void> {
    const overlap = conversation.attachments.length === 0 && this.deps.opening.size < MAX_OVERLAPPED_OPENINGS;
    const work = overlap ? this.sendWhileOpening(adapter, conversation) : this.openThenSend(adapter, conversation);
    return this.deps.opening.track(work);
  }

  private async openThenSend(adapter: ChannelAdapter, conversation: NewConversation): Promise<void> {
    const { channelId, name, origin, ownerUserId, modelAlias } = conversation;
    const threadId = await adapter.startThread(channelId, name, origin, this.deps.signal);
    markHotPath('thread-opened');
    const ws = await this.deps.router.createForThread(adapter.platform, threadId, ownerUserId, name, modelAlias);
    markHotPath('routed');
    await this.deps.sendToThread(adapter, threadId, ws, conversation.text, conversation.attachments, conversation.send ?? {});
  }

  private async sendWhileOpening(adapter: ChannelAdapter, conversation: NewConversation): Promise<void> {
    const { channelId, name, origin, ownerUserId, modelAlias } = conversation;
    const thread = adapter.startThread(channelId, name, origin, this.deps.signal);
    let ws: Workstream;
    try {
      ws = await this.deps.router.createForOpeningThread(adapter.platform, thread, ownerUserId, name, modelAlias);
    } catch (error) {
      // Not created (the agent is stopping): the thread's own outcome no longer matters.
      thread.catch(() => undefined);
      throw error;
    }
    markHotPath('routed');
    const early = this.deps.subs.bindOpening(ws, adapter);
    let binding: Binding | undefined;
    try {
      // A new workstream accepts its first message and starts the turn now; its events wait for the thread.
      await ws.send(conversation.text, conversation.send ?? {});
      const threadId = await thread;
      markHotPath('thread-opened');
      this.deps.router.routed(adapter.platform, threadId, ws.wsId);
      binding = early.open(threadId);
    } catch (error) {
      // The workstream is dropped by the manager (nothing was stored); its turn stops here, whatever it reached.
      early.abandon();
      ws.cancel();
      throw error;
    } finally {
      if (binding !== undefined) this.deps.subs.unhold(binding);
    }
  }
}
