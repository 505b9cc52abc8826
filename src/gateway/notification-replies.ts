/**
 * Replies to notifications: a reply to a message the notify endpoint posted with a `ws_id`
 * (a `notify_deliveries` row) is routed into that workstream, restored from the database when it is not in memory,
 * and answered where the reply was written. Every message of the answer is recorded as a delivery too, so the
 * exchange can go on; a reply to an expired delivery, to a closed workstream or by someone else is refused briefly.
 * A notification's `ws_id` is only a claim of whoever sent it (ADR 0035): a reply enters that workstream only when its
 * owner is the notification's recipient (or, for a channel notification, the owner or an admin answers). Otherwise the
 * reply is handled as any other message of the replier, in a conversation of their own.
 */
import type { Placement } from './cluster/coordination.js';
import { mayControl } from '../agent/ownership.js';
import type { ChannelAdapter } from '../channels/channel-adapter.js';
import { describeError } from '../shared/errors.js';
import type { NotifyDelivery } from '../storage/notify-delivery-store.js';
import type { ConversationDeps, MessageEvent } from './conversation-deps.js';
import type { LinkedUser } from './router.js';
import { trackPosts } from './tracked-adapter.js';

const DAY_MS = 86_400_000;

export interface NotificationReplyDeps extends ConversationDeps {
  /** How long after its latest use a delivery still takes replies (`gateway.notify_reply_days`). */
  replyDays: number;
}

/** Why a reply is not taken: the delivery is too old, the workstream is gone, or the writer is not the one notified. */
type Refusal = 'expired' | 'closed' | 'stranger';
/** The recipient's reply, but the notification named someone else's workstream: it goes to the replier's own conversation. */
type Foreign = 'foreign';

export class NotificationReplies {
  constructor(private readonly deps: NotificationReplyDeps) {}

  /**
   * Handles the message when it replies to a known delivery in the same conversation (routing or refusing it);
   * false when it replies to nothing we posted, so it is routed as any other message.
   */
  async handle(adapter: ChannelAdapter, event: MessageEvent): Promise<boolean> {
    const delivery = await this.deliveryOf(adapter, event);
    if (!delivery) return false;
    const writer = await this.deps.router.linkedUser(adapter.platform, event.user.id);
    const outcome = await this.check(delivery, event, writer);
    if (outcome === 'foreign') {
      this.deps.logger.warn(
        { platform: adapter.platform, wsId: delivery.wsId },
        "notification named a workstream its recipient does not own; the reply starts the replier's own conversation",
      );
      return false;
    }
    if (outcome === 'unlinked') {
      await this.deps.hintUnlinked(adapter, event);
      return true;
    }
    if (typeof outcome === 'string') {
      this.deps.logger.info(
        { platform: adapter.platform, wsId: delivery.wsId, reason: outcome },
        'notification reply refused',
      );
      await adapter.post(
        event.conversation.channelId,
        { kind: 'notice', code: 'notification-inactive' },
        this.deps.signal,
      );
      return true;
    }
    await this.route(adapter, event, delivery, outcome);
    return true;
  }

  private async deliveryOf(adapter: ChannelAdapter, event: MessageEvent): Promise<NotifyDelivery | undefined> {
    if (event.replyTo === undefined) return undefined;
    const delivery = await this.deps.stores.notifyDeliveries.findByMessage(adapter.platform, event.replyTo);
    return delivery && sameConversation(delivery.channelId, event.conversation.channelId) ? delivery : undefined;
  }

  private async check(
    delivery: NotifyDelivery,
    event: MessageEvent,
    writer: LinkedUser | undefined,
  ): Promise<Refusal | Foreign | 'unlinked' | Placement> {
    if (this.deps.now() - msOf(delivery.created) > this.deps.replyDays * DAY_MS) return 'expired';
    if (delivery.recipient !== '' && delivery.recipient !== event.user.id) return 'stranger';
    if (!writer) return 'unlinked';
    const ws = await this.deps.router.open(delivery.wsId);
    if (!ws) return 'closed';
    // Sent to a person: the workstream must be theirs (an admin recipient gets no one else's history either).
    if (delivery.recipient !== '' && ws.ownerUserId !== writer.userId) return 'foreign';
    // Posted into a channel for nobody in particular: only the workstream's owner (or an admin) may answer it.
    if (delivery.recipient === '' && !mayControl(ws.ownerUserId, writer)) return 'stranger';
    return ws;
  }

  /** Refreshes the delivery (its age counts from the latest reply) and sends the reply, tracking every answer post. */
  private async route(
    adapter: ChannelAdapter,
    event: MessageEvent,
    delivery: NotifyDelivery,
    ws: Placement,
  ): Promise<void> {
    const { notifyDeliveries } = this.deps.stores;
    const base = { wsId: ws.wsId, channelType: adapter.platform, recipient: delivery.recipient || event.user.id };
    await notifyDeliveries.record({ ...base, channelId: delivery.channelId, messageId: delivery.messageId });
    const tracked = trackPosts(adapter, async (channelId, messageId) => {
      try {
        await notifyDeliveries.record({ ...base, channelId, messageId });
      } catch (error) {
        this.deps.logger.warn(
          { wsId: ws.wsId, error: describeError(error) },
          'could not record an answer to a notification reply',
        );
      }
    });
    this.deps.logger.info({ platform: adapter.platform, wsId: ws.wsId }, 'notification reply routed');
    await this.deps.send(tracked, event.conversation.channelId, ws, event.text || 'Hello', event);
  }
}

/**
 * Whether a reply was written where the notification was posted: the same channel, or a thread in it (Slack keys a
 * thread `<channel>:<ts>`, and a reply to a notification is written in the thread under it).
 */
function sameConversation(deliveryChannel: string, written: string): boolean {
  return written === deliveryChannel || written.startsWith(`${deliveryChannel}:`);
}

/** Milliseconds of a stored UTC timestamp (`YYYY-MM-DDTHH:MM:SS`, no zone). */
function msOf(iso: string): number {
  return Date.parse(`${iso.replace(/Z$/, '')}Z`);
}
