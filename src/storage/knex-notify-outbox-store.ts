/** NotifyOutboxStore on knex (SQLite and PostgreSQL): outbox rows per target and idempotency keys per subject. */
import type { Knex } from 'knex';
import { newHexId } from '../shared/ids.js';
import { isoNow } from '../shared/time.js';
import type {
  AcceptInput,
  AcceptOutcome,
  IdempotencyClaim,
  NotifyOutboxStore,
  OutboxEntry,
  OutboxSettlement,
  OutboxStatus,
} from './notify-outbox-store.js';
import { nullableText, text, toNumber, type DbRow } from './rows.js';
import { guard, isUniqueViolation } from './storage-errors.js';

/** Lease times keep milliseconds (ISO text of one length compares like the instants). */
function leaseAt(ms: number): string {
  return new Date(ms).toISOString();
}

function toEntry(row: DbRow): OutboxEntry {
  const entry: OutboxEntry = {
    outboxId: text(row.outbox_id),
    requestId: text(row.request_id),
    position: toNumber(row.position),
    channelType: text(row.channel_type),
    channelId: text(row.channel_id),
    destination: { kind: text(row.destination_kind) === 'user' ? 'user' : 'channel', id: text(row.destination_id) },
    content: text(row.content),
    wsId: text(row.ws_id),
    status: text(row.status) as OutboxStatus,
    attempts: toNumber(row.attempts),
  };
  const messageId = nullableText(row.message_id);
  const delivered = nullableText(row.delivered_channel_id);
  if (messageId !== null) entry.messageId = messageId;
  if (delivered !== null) entry.deliveredChannelId = delivered;
  return entry;
}

export class KnexNotifyOutboxStore implements NotifyOutboxStore {
  constructor(private readonly knex: Knex) {}

  accept(input: AcceptInput): Promise<AcceptOutcome> {
    return guard('notifyOutbox.accept', async () => {
      try {
        return await this.knex.transaction((trx) => this.#accept(trx, input));
      } catch (error) {
        // Another request with the same key won the race: answer with its request.
        const claim = input.idempotency;
        if (claim === undefined || !isUniqueViolation(error)) throw error;
        const existing = await this.#existing(this.knex, claim, input.keyNotBefore);
        if (existing === undefined) throw error;
        return existing;
      }
    });
  }

  async #accept(trx: Knex.Transaction, input: AcceptInput): Promise<AcceptOutcome> {
    const requestId = newHexId();
    const now = isoNow();
    const claim = input.idempotency;
    if (claim !== undefined) {
      // The expired key goes first: the transaction then writes before it reads, so on SQLite it takes the write lock
      // (waiting for it) instead of failing when the write engine's connection commits between a read and a write.
      // Only an expired key is removed: under READ COMMITTED a racing request's fresh key may commit at any moment,
      // and must survive so this insert fails as a duplicate.
      await trx('notify_idempotency')
        .where({ subject: claim.subject, idempotency_key: claim.key })
        .andWhere('created', '<', input.keyNotBefore)
        .delete();
      const existing = await this.#existing(trx, claim, input.keyNotBefore);
      if (existing !== undefined) return existing;
      await trx('notify_idempotency').insert({
        subject: claim.subject,
        idempotency_key: claim.key,
        fingerprint: claim.fingerprint,
        request_id: requestId,
        created: now,
      });
    }
    const lease = leaseAt(Date.now() + input.leaseMs);
    const rows = input.entries.map((entry, position) => ({
      outbox_id: newHexId(),
      request_id: requestId,
      position,
      channel_type: entry.channelType,
      channel_id: entry.channelId,
      destination_kind: entry.destination.kind,
      destination_id: entry.destination.id,
      content: entry.content,
      ws_id: entry.wsId,
      status: entry.status,
      attempts: entry.status === 'accepted' ? 1 : 0,
      lease_until: lease,
      created: now,
      updated: now,
    }));
    if (rows.length > 0) await trx('notify_outbox').insert(rows);
    return { kind: 'accepted', requestId, entries: rows.map((row) => toEntry(row)) };
  }

  async #existing(
    db: Knex | Knex.Transaction,
    claim: IdempotencyClaim,
    notBefore: string,
  ): Promise<AcceptOutcome | undefined> {
    const key = (await db('notify_idempotency')
      .where({ subject: claim.subject, idempotency_key: claim.key })
      .first()) as DbRow | undefined;
    if (key === undefined || text(key.created) < notBefore) return undefined;
    const requestId = text(key.request_id);
    const rows = (await db('notify_outbox').where({ request_id: requestId }).orderBy('position')) as DbRow[];
    return { kind: 'existing', requestId, fingerprint: text(key.fingerprint), entries: rows.map(toEntry) };
  }

  settle(outboxId: string, settlement: OutboxSettlement): Promise<void> {
    return guard('notifyOutbox.settle', async () => {
      await this.knex('notify_outbox')
        .where({ outbox_id: outboxId })
        .update({
          status: settlement.status,
          message_id: settlement.messageId ?? null,
          delivered_channel_id: settlement.deliveredChannelId ?? null,
          updated: isoNow(),
        });
    });
  }

  claimDue(limit: number, leaseMs: number): Promise<OutboxEntry[]> {
    return guard('notifyOutbox.claimDue', async () => {
      const now = Date.now();
      const due = (await this.knex('notify_outbox')
        .where({ status: 'accepted' })
        .andWhere('lease_until', '<=', leaseAt(now))
        .orderBy('seq')
        .limit(limit)) as DbRow[];
      const claimed: OutboxEntry[] = [];
      for (const row of due) {
        const attempts = toNumber(row.attempts) + 1;
        const updated = await this.knex('notify_outbox')
          .where({ outbox_id: row.outbox_id, status: 'accepted', lease_until: row.lease_until })
          .update({ lease_until: leaseAt(now + leaseMs), attempts, updated: isoNow() });
        if (updated === 1) claimed.push(toEntry({ ...row, attempts }));
      }
      return claimed;
    });
  }

  retryLater(outboxId: string, delayMs: number): Promise<void> {
    return guard('notifyOutbox.retryLater', async () => {
      await this.knex('notify_outbox')
        .where({ outbox_id: outboxId, status: 'accepted' })
        .update({ lease_until: leaseAt(Date.now() + delayMs), updated: isoNow() });
    });
  }

  purge(before: string): Promise<number> {
    return guard('notifyOutbox.purge', async () => {
      await this.knex('notify_idempotency').where('created', '<', before).delete();
      return this.knex('notify_outbox').whereNot({ status: 'accepted' }).andWhere('updated', '<', before).delete();
    });
  }
}
