/**
 * What a hot-path write gets to run its statements: builders made with `table`/`raw` and run with `run`. On
 * PostgreSQL that is a knex transaction; on SQLite a knex transaction holds the one connection, and the transaction's
 * plain writes are sent to it together, as one script, when the transaction's work is done or a statement's rows are
 * read (sqlite-script.ts). A write must run every statement through `run`: a builder awaited by itself would queue for
 * the connection the batch holds.
 */
import type { Knex } from 'knex';
import {
  compile,
  execScript,
  inSqliteTransaction,
  isSqlite,
  readRows,
  type SqliteConnection,
  type Statement,
} from './sqlite-statements.js';
import { withLiterals } from './sqlite-script.js';

export type { Statement } from './sqlite-statements.js';

export interface BatchDb {
  table(name: string): Knex.QueryBuilder;
  raw(sql: string, bindings?: readonly Knex.RawBinding[]): Knex.Raw;
  /**
   * Runs a statement built here. Resolves with knex's result for a statement whose rows are read (a select, `first`,
   * `returning`). A plain write inside a SQLite transaction (raw SQL counts as one) resolves once it is queued in the
   * transaction's script, with no result: its outcome is the transaction's (a failure rejects the transaction).
   */
  run<T = unknown>(statement: Statement): Promise<T>;
}

/** A write handed a statement back instead of running it: the caller runs it. */
export function isStatement(value: unknown): value is Statement {
  return typeof value === 'object' && value !== null && typeof (value as { toSQL?: unknown }).toSQL === 'function';
}

/** Statements built on `db` (the knex instance or a transaction) and run by awaiting them. */
function knexBatchDb(db: Knex): BatchDb {
  return {
    table: (name) => db(name),
    raw: (sql, bindings = []) => db.raw(sql, bindings),
    run: <T>(statement: Statement) => Promise.resolve(statement as unknown as PromiseLike<T>),
  };
}

/**
 * A SQLite transaction's statements: plain writes are written out with their values (sqlite-script.ts) and kept, and
 * go to the connection as one script when the work is done (`flush`) or before a statement whose rows are read, which
 * runs by itself with bound values. One round trip to the driver for a group's writes instead of one per statement.
 */
class SqliteTransactionDb implements BatchDb {
  private script: string[] = [];

  constructor(
    private readonly knex: Knex,
    private readonly connection: SqliteConnection,
  ) {}

  table(name: string): Knex.QueryBuilder {
    return this.knex(name);
  }

  raw(sql: string, bindings: readonly Knex.RawBinding[] = []): Knex.Raw {
    return this.knex.raw(sql, bindings);
  }

  async run<T>(statement: Statement): Promise<T> {
    const compiled = compile(this.knex, statement);
    // Raw SQL handed to a write group is a write (an upsert, an UPDATE … FROM): its rows are not read.
    if (!compiled.readsRows || compiled.method === 'raw') {
      this.script.push(withLiterals(compiled.sql, compiled.bindings));
      return undefined as T;
    }
    await this.flush();
    return (await readRows(this.connection, compiled)) as T;
  }

  /** Sends the kept writes; resolves once SQLite ran them all, rejects with the first failure. */
  async flush(): Promise<void> {
    if (this.script.length === 0) return;
    // Each statement ends on its own line: a statement's closing line comment cannot swallow the separator.
    const script = this.script.join('\n;\n');
    this.script = [];
    await execScript(this.connection, script);
  }
}

/** Runs batches of statements on one database, in a transaction or (one statement) without. */
export class BatchRunner {
  private readonly sqlite: boolean;

  constructor(private readonly knex: Knex) {
    this.sqlite = isSqlite(knex);
  }

  /** `work` inside one transaction: committed when it resolves, rolled back when it throws. */
  transaction<T>(work: (db: BatchDb) => Promise<T>): Promise<T> {
    if (!this.sqlite) return this.knex.transaction((trx) => work(knexBatchDb(trx)));
    return inSqliteTransaction(this.knex, async (connection) => {
      const db = new SqliteTransactionDb(this.knex, connection);
      const result = await work(db);
      await db.flush();
      return result;
    });
  }

  /**
   * SQLite in WAL mode with synchronous=NORMAL (`db.ts`): a commit does not sync, so BEGIN and COMMIT around a couple of
   * statements cost more round trips than they save.
   */
  get commitsAreCheap(): boolean {
    return this.sqlite;
  }

  /** `work` outside a transaction (one statement commits by itself), through knex's pool like any other query. */
  alone<T>(work: (db: BatchDb) => Promise<T>): Promise<T> {
    return work(knexBatchDb(this.knex));
  }
}
