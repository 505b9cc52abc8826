/** InboundEventStore on knex: `INSERT … ON CONFLICT DO NOTHING` on both dialects (atomic across instances). */
import type { Knex } from 'knex';
import { messageSortKey, type InboundClaim, type InboundCursor, type InboundEventStore } from './inbound-event-store.js';
import { text, toNumber, type DbRow } from './rows.js';
import { guard } from './storage-errors.js';

const TABLE = 'inbound_events';

export class KnexInboundEventStore implements InboundEventStore {
  constructor(private readonly knex: Knex) {}

  claim(claim: InboundClaim): Promise<boolean> {
    return guard('inboundEvents.claim', async () => {
      const messageId = claim.messageId ?? '';
      const row = {
        platform: claim.platform,
        event_key: claim.eventKey,
        channel_id: claim.channelId ?? '',
        message_id: messageId,
        sort_key: messageId === '' ? '' : messageSortKey(messageId),
        received_at: claim.receivedAt,
      };
      const inserted = (await this.knex(TABLE).insert(row).onConflict(['platform', 'event_key']).ignore().returning('event_key')) as unknown[];
      return inserted.length > 0;
    });
  }

  cursor(platform: string, channelId: string, beforeMs: number): Promise<InboundCursor | undefined> {
    return guard('inboundEvents.cursor', async () => {
      const row = (await this.knex(TABLE)
        .select('message_id', 'received_at')
        .where({ platform, channel_id: channelId })
        .andWhere('received_at', '<', beforeMs)
        .andWhere('message_id', '<>', '')
        .orderBy('sort_key', 'desc')
        .first()) as DbRow | undefined;
      return row ? { messageId: text(row.message_id), receivedAt: toNumber(row.received_at) } : undefined;
    });
  }

  recentConversations(platform: string, sinceMs: number): Promise<string[]> {
    return guard('inboundEvents.recentConversations', async () => {
      const rows = (await this.knex(TABLE)
        .distinct('channel_id')
        .where({ platform })
        .andWhere('received_at', '>=', sinceMs)
        .andWhere('channel_id', '<>', '')) as DbRow[];
      return rows.map((row) => text(row.channel_id));
    });
  }

  prune(beforeMs: number): Promise<number> {
    return guard('inboundEvents.prune', async () => toNumber(await this.knex(TABLE).where('received_at', '<', beforeMs).delete()));
  }
}
