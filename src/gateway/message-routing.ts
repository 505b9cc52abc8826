/**
 * The inbound path of a message, after the dedup ledger: per-thread order → the route (thread, mention, DM,
 * notification reply) → who may write → the inbound limits → the conversation (bind and send). Commands start
 * conversations through `startConversation`.
 */
import type { SendOptions, Workstream } from '../agent/workstream-api.js';
import type { ChannelAdapter, InboundAttachment, ThreadOrigin } from '../channels/channel-adapter.js';
import { truncate } from '../channels/format/truncate.js';
import { describeError } from '../shared/errors.js';
import type { Logger } from '../shared/logger.js';
import type { KeyedSerialLanes } from '../shared/serial-lane.js';
import { SPAN, withSpan } from '../shared/telemetry.js';
import type { Config } from '../config/index.js';
import type { Stores } from '../storage/stores.js';
import type { MessageEvent } from './conversation-deps.js';
import { ConversationStarts } from './conversation-start.js';
import type { Conversations } from './conversations.js';
import { DirectConversations } from './direct-conversations.js';
import type { InboundLedger } from './inbound-ledger.js';
import { admitMessage, type InboundLimits } from './inbound-limits.js';
import { LinkHints } from './link-hints.js';
import type { ModelChoice } from './model-choice.js';
import { NotificationReplies } from './notification-replies.js';
import { OpeningThreads } from './opening-threads.js';
import type { LinkedUser, Router } from './router.js';
import { speakerText } from './speaker-text.js';
import type { Subscriptions } from './subscriptions.js';

export interface MessageRoutingDeps {
  config: Config;
  stores: Stores;
  router: Router;
  subs: Subscriptions;
  conversations: Conversations;
  ledger: InboundLedger;
  models: ModelChoice;
  limits: InboundLimits;
  /** Routing order per thread (arrival order); not a queue of turns: the workstream owns that (ADR 0006). */
  lanes: KeyedSerialLanes;
  logger: Logger;
  signal: AbortSignal;
  now: () => number;
}

export class MessageRouting {
  private readonly hints: LinkHints;
  /** Threads being opened (thread, route, first message); a message in a brand-new thread waits for them. */
  private readonly opening = new OpeningThreads();
  private readonly starts: ConversationStarts;
  private readonly directs: DirectConversations;
  private readonly replies: NotificationReplies;

  constructor(private readonly deps: MessageRoutingDeps) {
    const { stores, router, logger, signal, now, config, conversations } = deps;
    this.hints = new LinkHints(now, signal, logger);
    this.starts = new ConversationStarts({
      router, opening: this.opening, signal,
      sendToThread: (adapter, threadId, ws, text, attachments, options) => conversations.sendToThread(adapter, threadId, ws, text, undefined, options, attachments),
    });
    const conversationDeps = {
      stores, router, logger, signal, now,
      send: async (adapter: ChannelAdapter, channelId: string, ws: Workstream, text: string, event: MessageEvent) =>
        (await this.admit(adapter, event))
          ? conversations.sendToThread(adapter, channelId, ws, await this.spoken(adapter, ws, event, text), event.messageId, this.receiptOf(event), event.attachments)
          : undefined,
      hintUnlinked: (adapter: ChannelAdapter, event: MessageEvent) => this.hints.hint(adapter, event),
    };
    this.directs = new DirectConversations({ ...conversationDeps, idleHours: config.gateway.dm_idle_hours });
    this.replies = new NotificationReplies({ ...conversationDeps, replyDays: config.gateway.notify_reply_days });
  }

  async onMessage(adapter: ChannelAdapter, event: MessageEvent): Promise<void> {
    const { conversation } = event;
    // A channel message matters when it mentions the bot or replies to a message (perhaps a notification).
    if (conversation.kind === 'channel' && !event.mentioned && event.replyTo === undefined) return;
    // One ordered lane per thread; mentions in a channel only need ordering per author (each opens its own thread).
    const key = conversation.kind === 'thread' ? `${adapter.platform}:${conversation.channelId}` : `${adapter.platform}:${conversation.channelId}:${event.user.id}`;
    const route = (): Promise<void> => withSpan(SPAN.route, { 'sandpiper.platform': adapter.platform }, () => this.routeMessage(adapter, event));
    await this.deps.lanes.run(key, route).catch((error: unknown) => this.onMessageFailed(adapter, event, error));
  }

  private async routeMessage(adapter: ChannelAdapter, event: MessageEvent): Promise<void> {
    const { conversation } = event;
    if (conversation.kind === 'direct') return this.routeDirect(adapter, event);
    const wsId = conversation.kind === 'thread' ? await this.threadRoute(adapter.platform, conversation.channelId) : undefined;
    if (wsId === undefined && event.replyTo !== undefined && (await this.replies.handle(adapter, event))) return;
    // Not one of our threads (nor the thread under a notification), or a channel message without a mention.
    if (conversation.kind === 'thread' ? wsId === undefined : !event.mentioned) return;
    const user = await this.deps.router.linkedUser(adapter.platform, event.user.id);
    if (!user) return this.hints.hint(adapter, event);
    if (wsId === undefined) return (await this.admit(adapter, event)) ? this.startFromMention(adapter, event, user.userId) : undefined;
    const ws = await this.deps.router.open(wsId);
    if (!ws) return (await this.admit(adapter, event)) ? this.reactivate(adapter, event, wsId, user) : undefined;
    if (!this.deps.router.mayWrite(ws, user, adapter.threadParticipants)) return this.hints.notOwner(adapter, event);
    if (!(await this.admit(adapter, event))) return;
    await this.sendFromThread(adapter, ws, user, event);
  }

  /** A message in a thread: the owner's words as they are, a participant's in a shared thread fenced with their name. */
  private async sendFromThread(adapter: ChannelAdapter, ws: Workstream, user: LinkedUser, event: MessageEvent): Promise<void> {
    const text = user.userId === ws.ownerUserId ? event.text : speakerText(ws.ownerUserId, user, event.user, event.text, 'message');
    await this.deps.conversations.sendToThread(adapter, event.conversation.channelId, ws, text, event.messageId, this.receiptOf(event), event.attachments);
  }

  /** The message's ledger row when it is to be written with the message (single instance, see InboundLedger.take). */
  private receiptOf(event: MessageEvent): SendOptions {
    const receipt = this.deps.ledger.take(event);
    return receipt === undefined ? {} : { receipt };
  }

  /** A DM or a notification reply: the owner's own words as they are, anyone else's fenced as data (`speaker-text.ts`). */
  private async spoken(adapter: ChannelAdapter, ws: Workstream, event: MessageEvent, text: string): Promise<string> {
    const writer = await this.deps.router.linkedUser(adapter.platform, event.user.id);
    if (writer?.userId === ws.ownerUserId) return text;
    return speakerText(ws.ownerUserId, writer, event.user, text, event.replyTo === undefined ? 'message' : 'notification_reply');
  }

  /** A reply to a notification goes to the notification's workstream; any other DM to the DM conversation. */
  private async routeDirect(adapter: ChannelAdapter, event: MessageEvent): Promise<void> {
    if (!(await this.replies.handle(adapter, event))) await this.directs.route(adapter, event);
  }

  /** The inbound limits (ADR 0018): false when the message is refused (the writer was told, never silently). */
  private admit(adapter: ChannelAdapter, event: MessageEvent): Promise<boolean> {
    return admitMessage(this.deps.limits, adapter, event, this.deps.signal, this.deps.logger);
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
      if (send.receipt !== undefined) await this.deps.ledger.release(send.receipt);
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
    const outcome = await this.deps.router.reactivate(adapter.platform, threadId, oldWsId, user, name, adapter.threadParticipants);
    if (outcome.status === 'not-allowed') return;
    if (outcome.status === 'closed') {
      await adapter.post(threadId, { kind: 'notice', code: 'closed' }, this.deps.signal);
      return;
    }
    const ws = outcome.ws;
    this.deps.logger.info({ platform: adapter.platform, oldWsId, wsId: ws.wsId }, 'thread routed to a new workstream (the old one was deleted)');
    await adapter.post(threadId, { kind: 'notice', code: 'reactivated' }, this.deps.signal);
    await this.deps.conversations.sendToThread(adapter, threadId, ws, event.text || 'Hello', event.messageId, this.receiptOf(event), event.attachments);
  }

  /** Opens a thread, routes it to a new workstream and sends the first message; tracked so follow-ups wait for it. */
  startConversation(
    adapter: ChannelAdapter, channelId: string, name: string, origin: ThreadOrigin, ownerUserId: string, text: string, modelAlias: string | undefined,
    attachments: readonly InboundAttachment[] = [], send: SendOptions = {},
  ): Promise<void> {
    const model = modelAlias ?? this.deps.models.channelDefault(adapter.platform, channelId);
    return this.starts.start(adapter, { channelId, name, origin, ownerUserId, text, modelAlias: model, attachments, send });
  }

  /** The route of a thread; a message that races the creation of its own thread waits for the creations in flight. */
  private threadRoute(platform: string, threadId: string): Promise<string | undefined> {
    return this.opening.routeOf(() => this.deps.router.routeFor(platform, threadId));
  }

  /** A message could not be handled: logged, and the writer is told in the conversation instead of getting silence. */
  private onMessageFailed(adapter: ChannelAdapter, event: MessageEvent, error: unknown): void {
    this.deps.logger.error({ error: describeError(error) }, 'message failed');
    const notice = { kind: 'error', message: 'Your message could not be handled; please try again.' } as const;
    void adapter.post(event.conversation.channelId, notice, this.deps.signal).catch((postError: unknown) => this.deps.logger.error({ error: describeError(postError) }, 'error notice failed'));
  }
}
