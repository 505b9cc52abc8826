/**
 * Starts a conversation in a new thread (a mention, `/ask`): the thread is opened first, then the workstream and the
 * thread's route are created (one write, committed while the first turn starts), then the first message is handed
 * over (its attachments saved first). When the thread cannot be opened, nothing is stored or shown, and the caller
 * reports the failure. The opening is tracked, so a message in the new thread that arrives before its route is
 * stored waits for it (OpeningThreads).
 */
import type { SendOptions, SendOutcome, Workstream } from '../agent/workstream-api.js';
import type { ChannelAdapter, InboundAttachment, ThreadOrigin } from '../channels/channel-adapter.js';
import type { OpeningThreads } from './opening-threads.js';
import type { Router } from './router.js';

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
  opening: OpeningThreads;
  signal: AbortSignal;
  /** Hands a message to a workstream rendered into an open thread (attachments saved first). */
  sendToThread(
    adapter: ChannelAdapter,
    threadId: string,
    ws: Workstream,
    text: string,
    attachments: readonly InboundAttachment[],
    options: SendOptions,
  ): Promise<SendOutcome>;
}

export class ConversationStarts {
  constructor(private readonly deps: ConversationStartDeps) {}

  /** Opens the thread and starts its workstream; tracked, so a message in the new thread waits for its route. */
  start(adapter: ChannelAdapter, conversation: NewConversation): Promise<void> {
    return this.deps.opening.track(this.openThenSend(adapter, conversation));
  }

  private async openThenSend(adapter: ChannelAdapter, conversation: NewConversation): Promise<void> {
    const { channelId, name, origin, ownerUserId, modelAlias } = conversation;
    const threadId = await adapter.startThread(channelId, name, origin, this.deps.signal);
    const ws = await this.deps.router.createForThread(adapter.platform, threadId, ownerUserId, name, modelAlias);
    await this.deps.sendToThread(
      adapter,
      threadId,
      ws,
      conversation.text,
      conversation.attachments,
      conversation.send ?? {},
    );
  }
}
