/** TurnJournalStore on knex: one row per turn in flight, written behind the turn (batched) and read at start-up. */
import type { Knex } from 'knex';
import { isoNow } from '../shared/time.js';
import { fromDbBool, text, toDbBool, type DbRow } from './rows.js';
import { guard } from './storage-errors.js';
import { isSqlite } from './sqlite-statements.js';
import { guardAfter, TickWriter } from './tick-writer.js';
import { workstreamKey } from './merged-statements.js';
import {
  acceptsRow,
  applyOne,
  claimLostAsError,
  isOneStatementChange,
  partialTexts,
  textsStatement,
} from './turn-journal-writes.js';
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

/** The workstream a change belongs to, as the key of the rows it touches (merged-statements.ts). */
function touchedBy(changes: readonly TurnJournalChange[]): string[] {
  return [...new Set(changes.map((change) => workstreamKey(change.wsId)))];
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
      const [only] = changes;
      if (changes.length === 1 && only !== undefined && (await this.applyAsRowWrite(only, now))) return;
      const texts = partialTexts(changes);
      if (texts !== undefined) {
        // The streamed text of every turn that showed some since the last write: one statement.
        await this.writer.write((db) => db.run(textsStatement(db, texts, now)), {
          oneStatement: true,
          touches: touchedBy(changes),
        });
        return;
      }
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
        { oneStatement, touches: touchedBy(changes) },
      );
    });
  }

  /**
   * A change that is one row write (a `turn_accepts` row on SQLite, the removal of an ended turn's row), handed to the
   * write engine as such: it shares one statement with the group's others of its shape. False for any other change.
   */
  private async applyAsRowWrite(change: TurnJournalChange, now: string): Promise<boolean> {
    const touches = touchedBy([change]);
    if (change.kind === 'end') {
      await this.writer.writeRow({ deleteFrom: 'turn_journal', column: 'turn_id', equals: change.turnId }, touches);
      return true;
    }
    if (!this.sqlite || !isOneStatementChange(change)) return false;
    const row = acceptsRow(change, now);
    await claimLostAsError(change, () => this.writer.writeRow({ insertInto: 'turn_accepts', row }, touches));
    return true;
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
