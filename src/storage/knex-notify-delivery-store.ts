/** NotifyDeliveryStore on knex: where notifications were posted, so replies find their workstream. */
import type { Knex } from 'knex';
import { newHexId } from '../shared/ids.js';
import { isoNow } from '../shared/time.js';
import type { NotifyDelivery, NotifyDeliveryStore } from './notify-delivery-store.js';
import { text, type DbRow } from './rows.js';
import { guard } from './storage-errors.js';

function toDelivery(row: DbRow): NotifyDelivery {
  return {
    deliveryId: text(row.delivery_id),
    wsId: text(row.ws_id),
    channelType: text(row.channel_type),
    channelId: text(row.channel_id),
    messageId: text(row.message_id),
    recipient: text(row.recipient),
    created: text(row.created),
  };
}

export class KnexNotifyDeliveryStore implements NotifyDeliveryStore {
  constructor(private readonly knex: Knex) {}

  record(input: Omit<NotifyDelivery, 'deliveryId' | 'created'>): Promise<NotifyDelivery> {
    return guard('notifyDeliveries.record', async () => {
      const row = {
        delivery_id: newHexId(),
        ws_id: input.wsId,
        channel_type: input.channelType,
        channel_id: input.channelId,
        message_id: input.messageId,
        recipient: input.recipient,
        created: isoNow(),
      };
      await this.knex('notify_deliveries').insert(row);
      return toDelivery(row);
    });
  }

  findByMessage(channelType: string, messageId: string): Promise<NotifyDelivery | undefined> {
    return guard('notifyDeliveries.findByMessage', async () => {
      const row = (await this.knex('notify_deliveries')
        .where({ channel_type: channelType, message_id: messageId })
        .orderBy('seq', 'desc')
        .first()) as DbRow | undefined;
      return row ? toDelivery(row) : undefined;
    });
  }

  findLatestInChannel(channelType: string, channelId: string): Promise<NotifyDelivery | undefined> {
    return guard('notifyDeliveries.findLatestInChannel', async () => {
      const row = (await this.knex('notify_deliveries')
        .where({ channel_type: channelType, channel_id: channelId })
        .orderBy('seq', 'desc')
        .first()) as DbRow | undefined;
      return row ? toDelivery(row) : undefined;
    });
  }
}
