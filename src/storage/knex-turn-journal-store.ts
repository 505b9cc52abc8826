/** TurnJournalStore on knex: one row per turn in flight, written behind the turn (batched) and read at start-up. */
import type { Knex } from 'knex';
import { isoNow } from '../shared/time.js';
import { fromDbBool, text, toDbBool, type DbRow } from './rows.js';
import { guard } from './storage-errors.js';
import type { BatchDb } from './batch-db.js';
import { toConversationRow } from './conversation-rows.js';
import type { InboundClaim } from './inbound-event-store.js';
import { settledRow, settleReceipt } from './knex-inbound-event-store.js';
import { isSqlite } from './sqlite-statements.js';
import { ClaimLostError } from '../shared/errors.js';
import { guardAfter, TickWriter } from './tick-writer.js';
import type { Message } from '../agent/messages.js';
import type { QueuedMessageRow, TurnJournalChange, TurnJournalRow, TurnJournalStore } from './turn-journal-store.js';

function toRow(row: DbRow): TurnJournalRow {
  return {
    turnId: text(row.turn_id),
    wsId: text(row.ws_id),
    resumed: fromDbBool(row.resumed),
    partialText: text(row.partial_text),
    settled: fromDbBool(row.settled),
    started: text(row.started),
    updated: text(row.updated),
  };
}

function toQueuedRow(row: DbRow): QueuedMessageRow {
  return {
    turnId: text(row.turn_id),
    wsId: text(row.ws_id),
    content: text(row.content),
    origin: row.origin === 'watch' ? 'watch' : 'user',
    seq: Number(row.seq),
  };
}

/** The message's ledger row, in the write that stores the message: inserted, or the pending claim settled. */
async function writeReceipt(db: BatchDb, receipt: InboundClaim | undefined): Promise<void> {
  if (receipt !== undefined) await settleReceipt((query) => db.run(query), db.table('inbound_events'), receipt);
}

type BeginChange = Extract<TurnJournalChange, { kind: 'begin' }>;

/** The message in the history and, for one that waited, the removal of its waiting row (the trigger's same part). */
async function messageAndWaitingRemoval(
  db: BatchDb,
  change: { wsId: string; turnId: string; message?: Message | undefined; waited?: boolean | undefined },
  now: string,
): Promise<void> {
  if (change.message !== undefined && change.message.role !== 'system') {
    await db.run(db.table('conversations').insert(toConversationRow(change.wsId, now, change.message)));
  }
  if (change.waited === true) await db.run(db.table('queued_messages').where({ turn_id: change.turnId }).delete());
}

/** *accepted* as rows written one by one (PostgreSQL: inside the batch's transaction). */
async function beginInRows(db: BatchDb, change: BeginChange, now: string): Promise<void> {
  await writeReceipt(db, change.receipt);
  await messageAndWaitingRemoval(db, change, now);
  // The workstream's older row (a turn this one supersedes) is replaced: one row per workstream.
  await db.run(
    db
      .table('turn_journal')
      .insert({
        turn_id: change.turnId,
        ws_id: change.wsId,
        resumed: toDbBool(change.resumed),
        partial_text: '',
        settled: toDbBool(false),
        started: now,
        updated: now,
      })
      .onConflict('ws_id')
      .merge(['turn_id', 'resumed', 'partial_text', 'settled', 'started', 'updated']),
  );
}

const CLAIM_LOST = 'sandpiper: inbound claim lost';

/** The ledger row's columns of `turn_accepts`: all null when the message has no receipt. */
function eventColumns(receipt: InboundClaim | undefined): Record<string, unknown> {
  const row: DbRow = receipt === undefined ? {} : settledRow(receipt);
  return {
    event_platform: row.platform ?? null,
    event_key: row.event_key ?? null,
    event_channel_id: row.channel_id ?? null,
    event_message_id: row.message_id ?? null,
    event_sort_key: row.sort_key ?? null,
    event_received_at: row.received_at ?? null,
    event_claimed_by: receipt?.claimedBy ?? null,
  };
}

/** A message as `conversations` columns, without `ws_id` and `timestamp` (the write's `ws_id` and `started`). */
function messageColumns(wsId: string, message: Message | undefined, now: string): Record<string, unknown> {
  if (message === undefined || message.role === 'system') return {};
  const { ws_id: _wsId, timestamp: _timestamp, ...columns } = toConversationRow(wsId, now, message);
  return columns;
}

type OneStatementChange = Extract<TurnJournalChange, { kind: 'begin' | 'queue' | 'steer' }>;

/** The `turn_accepts` row of a change: which of the trigger's rows it writes follows from the columns set. */
function acceptsRow(change: OneStatementChange, now: string): Record<string, unknown> {
  const common = { turn_id: change.turnId, ws_id: change.wsId, started: now };
  switch (change.kind) {
    case 'begin':
      return {
        ...common,
        begins: 1,
        resumed: toDbBool(change.resumed),
        waited: toDbBool(change.waited === true),
        ...eventColumns(change.receipt),
        ...messageColumns(change.wsId, change.message, now),
      };
    case 'queue':
      return {
        ...common,
        begins: 0,
        ...eventColumns(change.receipt),
        queued_content: change.content,
        queued_origin: change.origin,
        queued_seq: change.seq,
      };
    case 'steer':
      return { ...common, begins: 0, waited: 1, ...messageColumns(change.wsId, change.message, now) };
  }
}

/**
 * *accepted*, a waiting message or a steer as one statement on SQLite: the same rows as on PostgreSQL, written by the
 * `turn_accepts` view's trigger (migrations 20260601003601 and 20260601003603).
 */
async function acceptInOneStatement(db: BatchDb, change: OneStatementChange, now: string): Promise<void> {
  const receipt = change.kind === 'steer' ? undefined : change.receipt;
  try {
    await db.run(db.table('turn_accepts').insert(acceptsRow(change, now)));
  } catch (error) {
    if (receipt !== undefined && error instanceof Error && error.message.includes(CLAIM_LOST)) {
      throw new ClaimLostError(receipt.platform);
    }
    throw error;
  }
}

async function applyOne(db: BatchDb, change: TurnJournalChange, now: string, sqlite: boolean): Promise<void> {
  switch (change.kind) {
    case 'begin':
    case 'queue':
    case 'steer':
      return sqlite ? acceptInOneStatement(db, change, now) : writeRows(db, change, now);
    case 'partial':
      await db.run(
        db
          .table('turn_journal')
          .where({ turn_id: change.turnId })
          .update({ partial_text: change.partialText, updated: now }),
      );
      return;
    case 'end':
      await db.run(db.table('turn_journal').where({ turn_id: change.turnId }).delete());
      return;
    case 'drop':
      await db.run(db.table('queued_messages').where({ ws_id: change.wsId }).delete());
      return;
  }
}

/** *accepted*, a waiting message or a steer as rows written one by one (PostgreSQL: inside the batch's transaction). */
async function writeRows(db: BatchDb, change: OneStatementChange, now: string): Promise<void> {
  if (change.kind === 'begin') return beginInRows(db, change, now);
  if (change.kind === 'queue') {
    const { turnId, wsId, content, origin, seq } = change;
    await writeReceipt(db, change.receipt);
    await db.run(
      db.table('queued_messages').insert({ turn_id: turnId, ws_id: wsId, content, origin, seq, created: now }),
    );
    return;
  }
  await messageAndWaitingRemoval(db, { ...change, waited: true }, now);
}

export class KnexTurnJournalStore implements TurnJournalStore {
  /** SQLite writes *accepted*, a waiting message and a steer in one statement each (`turn_accepts`). */
  private readonly sqlite: boolean;

  constructor(
    private readonly knex: Knex,
    /** Shares one transaction per event-loop turn with the other hot-path writes (ADR 0026). */
    private readonly writer: TickWriter = new TickWriter(knex),
  ) {
    this.sqlite = isSqlite(knex);
  }

  apply(changes: readonly TurnJournalChange[]): Promise<void> {
    return guard('turnJournal.apply', async () => {
      if (changes.length === 0) return;
      const now = isoNow();
      // One change that is one statement needs no transaction of its own (two round trips fewer): on SQLite every
      // change is; on PostgreSQL those that write one row.
      const first = changes[0];
      const rowsOnPostgres =
        first?.kind === 'begin' || first?.kind === 'steer' || (first?.kind === 'queue' && first.receipt !== undefined);
      const oneStatement = changes.length === 1 && (this.sqlite || !rowsOnPostgres);
      await this.writer.write(
        async (db) => {
          for (const change of changes) await applyOne(db, change, now, this.sqlite);
        },
        { oneStatement },
      );
    });
  }

  list(): Promise<TurnJournalRow[]> {
    return guardAfter(this.writer, 'turnJournal.list', async () => {
      const rows = (await this.knex('turn_journal').orderBy([{ column: 'started' }, { column: 'turn_id' }])) as DbRow[];
      return rows.map(toRow);
    });
  }

  forWorkstream(wsId: string): Promise<TurnJournalRow | undefined> {
    return guardAfter(this.writer, 'turnJournal.forWorkstream', async () => {
      const row = (await this.knex('turn_journal').where({ ws_id: wsId }).orderBy('started', 'desc').first()) as
        DbRow | undefined;
      return row ? toRow(row) : undefined;
    });
  }

  markSettled(turnId: string): Promise<void> {
    return guardAfter(this.writer, 'turnJournal.markSettled', async () => {
      await this.knex('turn_journal')
        .where({ turn_id: turnId })
        .update({ settled: toDbBool(true), partial_text: '', updated: isoNow() });
    });
  }

  remove(turnId: string): Promise<void> {
    return guardAfter(this.writer, 'turnJournal.remove', async () => {
      await this.knex('turn_journal').where({ turn_id: turnId }).delete();
    });
  }

  queued(wsId: string): Promise<QueuedMessageRow[]> {
    return guardAfter(this.writer, 'turnJournal.queued', async () => {
      const rows = (await this.knex('queued_messages')
        .where({ ws_id: wsId })
        .orderBy([{ column: 'seq' }, { column: 'turn_id' }])) as DbRow[];
      return rows.map(toQueuedRow);
    });
  }

  turningWorkstreams(): Promise<string[]> {
    return guardAfter(this.writer, 'turnJournal.turningWorkstreams', async () => {
      const rows = (await this.knex('turn_journal').select('ws_id').orderBy('ws_id')) as DbRow[];
      return rows.map((row) => text(row.ws_id));
    });
  }

  queuedWorkstreams(): Promise<string[]> {
    return guardAfter(this.writer, 'turnJournal.queuedWorkstreams', async () => {
      const rows = (await this.knex('queued_messages').distinct('ws_id').orderBy('ws_id')) as DbRow[];
      return rows.map((row) => text(row.ws_id));
    });
  }
}
