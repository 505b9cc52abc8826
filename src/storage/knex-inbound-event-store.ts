/** InboundEventStore on knex: `INSERT … ON CONFLICT DO NOTHING` on both dialects (atomic across instances). */
import type { Knex } from 'knex';
import { ClaimLostError } from '../shared/errors.js';
import { BatchRunner } from './batch-db.js';
import {
  claimId,
  messageSortKey,
  type InboundClaim,
  type InboundCursor,
  type InboundEventStore,
  type ReclaimRule,
} from './inbound-event-store.js';
import { text, toNumber, type DbRow } from './rows.js';
import { guard } from './storage-errors.js';
import { TickWriter } from './tick-writer.js';

const TABLE = 'inbound_events';
/** Rows per INSERT (6 bound values each, well under SQLite's and PostgreSQL's parameter limits). */
const CLAIM_CHUNK = 500;

export class KnexInboundEventStore implements InboundEventStore {
  /** The claims are on every message's path: statements run on the held connection (batch-db.ts). */
  private readonly runner: BatchRunner;

  constructor(
    private readonly knex: Knex,
    /** The hot path's write batches (ADR 0026), which claims nobody waits on join. */
    private readonly writer: TickWriter = new TickWriter(knex),
  ) {
    this.runner = new BatchRunner(knex);
  }

  claim(claim: InboundClaim): Promise<boolean> {
    return guard('inboundEvents.claim', async () =>
      (await this.insertIgnoring([claim])).has(claimId(claim.platform, claim.eventKey)),
    );
  }

  /** Written settled: a pending row of the same event (claimed before the message) is settled by it. */
  claimBehind(claim: InboundClaim): Promise<boolean> {
    return guard('inboundEvents.claimBehind', async () => {
      const inserted = await this.writer.write(
        (db) => settledUpsert(db.table(TABLE), claim).returning(['platform', 'event_key']),
        { oneStatement: true },
      );
      return (inserted as DbRow[]).length > 0;
    });
  }

  reclaim(claim: InboundClaim & { claimedBy: string }, rule: ReclaimRule): Promise<boolean> {
    return guard('inboundEvents.reclaim', async () => {
      const query = this.knex(TABLE)
        .insert(rowOf(claim))
        .onConflict(['platform', 'event_key'])
        .merge({ claimed_by: claim.claimedBy, received_at: claim.receivedAt })
        .where(`${TABLE}.pending`, 1)
        .andWhere(`${TABLE}.claimed_by`, '<>', claim.claimedBy);
      if (rule.aliveSince !== undefined) {
        const alive = this.knex('services')
          .select('service_id')
          .whereRaw(`services.service_id = ${TABLE}.claimed_by`)
          .andWhere('last_heartbeat', '>=', rule.aliveSince);
        void query.whereNotExists(alive);
      }
      return ((await query.returning(['event_key'])) as DbRow[]).length > 0;
    });
  }

  earlierPending(claim: InboundClaim & { claimedBy: string }, rule: ReclaimRule): Promise<string | undefined> {
    return guard('inboundEvents.earlierPending', async () => {
      const messageId = claim.messageId ?? '';
      if (messageId === '' || claim.channelId === undefined) return undefined;
      // idx_inbound_events_cursor (platform, channel_id, sort_key) bounds the scan to the thread's earlier messages.
      const query = this.knex(TABLE)
        .select('message_id')
        .where({ platform: claim.platform, channel_id: claim.channelId, pending: 1 })
        .andWhere('sort_key', '<', messageSortKey(messageId))
        .andWhere('sort_key', '<>', '')
        .andWhere('claimed_by', '<>', claim.claimedBy);
      if (rule.aliveSince !== undefined) {
        const alive = this.knex('services')
          .select('service_id')
          .whereRaw(`services.service_id = ${TABLE}.claimed_by`)
          .andWhere('last_heartbeat', '>=', rule.aliveSince);
        void query.whereExists(alive);
      }
      const row = (await query.orderBy('sort_key', 'asc').first()) as DbRow | undefined;
      return row === undefined ? undefined : text(row.message_id);
    });
  }

  /** Records many events in one statement per CLAIM_CHUNK; resolves with the keys this call recorded first. */
  claimMany(claims: readonly InboundClaim[]): Promise<Set<string>> {
    return guard('inboundEvents.claimMany', async () => {
      const recorded = new Set<string>();
      for (let start = 0; start < claims.length; start += CLAIM_CHUNK) {
        for (const key of await this.insertIgnoring(claims.slice(start, start + CLAIM_CHUNK))) recorded.add(key);
      }
      return recorded;
    });
  }

  private async insertIgnoring(claims: readonly InboundClaim[]): Promise<Set<string>> {
    const rows = claims.map(rowOf);
    // Keys are unique per platform; a batch may mix platforms, so the returned rows carry both.
    const inserted = await this.runner.alone((db) =>
      db.run<DbRow[]>(
        db
          .table(TABLE)
          .insert(rows)
          .onConflict(['platform', 'event_key'])
          .ignore()
          .returning(['platform', 'event_key']),
      ),
    );
    return new Set(inserted.map((row) => claimId(text(row.platform), text(row.event_key))));
  }

  cursor(platform: string, channelId: string, beforeMs: number): Promise<InboundCursor | undefined> {
    return guard('inboundEvents.cursor', async () => {
      const row = (await this.knex(TABLE)
        .select('message_id', 'received_at')
        .where({ platform, channel_id: channelId, pending: 0 })
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

  messageFloor(platform: string): Promise<string> {
    return guard('inboundEvents.messageFloor', async () => {
      const row = (await this.knex(TABLE)
        .max({ floor: 'sort_key' })
        .where({ platform })
        .andWhere('message_id', '<>', '')
        .first()) as DbRow | undefined;
      return row?.floor === null || row?.floor === undefined ? '' : text(row.floor);
    });
  }

  prune(beforeMs: number): Promise<number> {
    return guard('inboundEvents.prune', async () =>
      toNumber(await this.knex(TABLE).where('received_at', '<', beforeMs).delete()),
    );
  }
}

/**
 * The ledger row of a claim, written with the message's *waiting* or *accepted* commit point (turn journal): inserted
 * settled, or settling the pending row of a message claimed before it was stored. One statement.
 */
export function settledUpsert(table: Knex.QueryBuilder, claim: InboundClaim): Knex.QueryBuilder {
  const upsert = table.insert(settledRow(claim)).onConflict(['platform', 'event_key']).merge({ pending: 0 });
  // A claim of this process (`claimedBy`) is settled only while it is still this process's: a row another instance
  // took over (`reclaim`) is left alone, and nothing is returned. Without one, an already settled row is left alone
  // (nothing returned: the event was recorded before, as `claim` answers).
  return claim.claimedBy === undefined
    ? upsert.where(`${TABLE}.pending`, 1)
    : upsert.where(`${TABLE}.claimed_by`, claim.claimedBy);
}

/**
 * Settles a message's ledger row inside the write that stores the message (turn journal, handoff). A pending claim
 * of this process that another instance took over meanwhile throws ClaimLostError: the write is not made (fencing,
 * docs/design/cluster.md).
 */
export async function settleReceipt(
  run: (query: Knex.QueryBuilder) => Promise<unknown>,
  table: Knex.QueryBuilder,
  receipt: InboundClaim,
): Promise<void> {
  const settled = (await run(settledUpsert(table, receipt).returning(['event_key']))) as DbRow[];
  if (receipt.claimedBy !== undefined && settled.length === 0) throw new ClaimLostError(receipt.platform);
}

/** The columns of a claim's row written settled (the *accepted* write on SQLite sets them through `turn_accepts`). */
export function settledRow(claim: InboundClaim): DbRow {
  return rowOf({ ...claim, claimedBy: undefined });
}

function rowOf(claim: InboundClaim): DbRow {
  const messageId = claim.messageId ?? '';
  return {
    platform: claim.platform,
    event_key: claim.eventKey,
    channel_id: claim.channelId ?? '',
    message_id: messageId,
    sort_key: messageId === '' ? '' : messageSortKey(messageId),
    received_at: claim.receivedAt,
    // Only a message is stored later; any other event's row is settled when written.
    ...(claim.claimedBy === undefined || messageId === '' ? {} : { pending: 1, claimed_by: claim.claimedBy }),
  };
}
