/**
 * How each change of the turn log is written (docs/design/durability.md): as rows one by one (PostgreSQL, inside the
 * group's transaction), or on SQLite as one row of the `turn_accepts` view, whose INSTEAD OF trigger writes the same
 * rows in one statement.
 */
import type { BatchDb, Statement } from './batch-db.js';
import { toConversationRow } from './conversation-rows.js';
import type { InboundClaim } from './inbound-event-store.js';
import { settledRow, settleReceipt } from './knex-inbound-event-store.js';
import { toDbBool, type DbRow } from './rows.js';
import { ClaimLostError } from '../shared/errors.js';
import type { Message } from '../agent/messages.js';
import type { TurnJournalChange } from './turn-journal-store.js';

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

export type OneStatementChange = Extract<TurnJournalChange, { kind: 'begin' | 'queue' | 'steer' }>;

/** The `turn_accepts` row of a change: which of the trigger's rows it writes follows from the columns set. */
export function acceptsRow(change: OneStatementChange, now: string): Record<string, unknown> {
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

/** A claim another instance took over aborts the `turn_accepts` statement (its trigger's RAISE): `ClaimLostError`. */
export async function claimLostAsError(change: OneStatementChange, write: () => Promise<void>): Promise<void> {
  const receipt = change.kind === 'steer' ? undefined : change.receipt;
  try {
    await write();
  } catch (error) {
    if (receipt !== undefined && error instanceof Error && error.message.includes(CLAIM_LOST)) {
      throw new ClaimLostError(receipt.platform);
    }
    throw error;
  }
}

/**
 * *accepted*, a waiting message or a steer as one statement on SQLite: the same rows as on PostgreSQL, written by the
 * `turn_accepts` view's trigger (migrations 20260601003601 and 20260601003603).
 */
function acceptInOneStatement(db: BatchDb, change: OneStatementChange, now: string): Promise<void> {
  return claimLostAsError(change, async () => {
    await db.run(db.table('turn_accepts').insert(acceptsRow(change, now)));
  });
}

export function isOneStatementChange(change: TurnJournalChange): change is OneStatementChange {
  return change.kind === 'begin' || change.kind === 'queue' || change.kind === 'steer';
}

export async function applyOne(db: BatchDb, change: TurnJournalChange, now: string, sqlite: boolean): Promise<void> {
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

type PartialChange = Extract<TurnJournalChange, { kind: 'partial' }>;

/** The changes when all are streamed texts, several of them (one statement for all); undefined otherwise. */
export function partialTexts(changes: readonly TurnJournalChange[]): PartialChange[] | undefined {
  if (changes.length < 2) return undefined;
  const texts = changes.filter((change): change is PartialChange => change.kind === 'partial');
  return texts.length === changes.length ? texts : undefined;
}

/**
 * Streamed texts of several turns as one UPDATE … FROM a list of values (SQLite 3.33+ and PostgreSQL): a row that is
 * gone changes nothing, as its own UPDATE would. Of two texts of one turn, the later one is kept.
 */
export function textsStatement(db: BatchDb, texts: readonly PartialChange[], now: string): Statement {
  const latest = new Map(texts.map((change) => [change.turnId, change.partialText]));
  const values = [...latest].map(() => '(?, ?)').join(', ');
  return db.raw(
    `WITH texts (turn_id, partial_text) AS (VALUES ${values})
     UPDATE turn_journal SET partial_text = texts.partial_text, updated = ?
     FROM texts WHERE turn_journal.turn_id = texts.turn_id`,
    [...[...latest].flat(), now],
  );
}
