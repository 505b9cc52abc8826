/**
 * What a hot-path write gets to run its statements: builders made with `table`/`raw` and run with `run`. On
 * PostgreSQL that is a knex transaction; on SQLite a knex transaction holds the one connection and the statements run
 * on it as prepared statements (sqlite-statements.ts). A write must run every statement through `run`: a builder
 * awaited by itself would queue for the connection the batch holds.
 */
import type { Knex } from 'knex';
import {
  inSqliteTransaction,
  isSqlite,
  runOnce,
  runPrepared,
  type SqliteConnection,
  type Statement,
} from './sqlite-statements.js';

export type { Statement } from './sqlite-statements.js';

export interface BatchDb {
  table(name: string): Knex.QueryBuilder;
  raw(sql: string, bindings?: readonly Knex.RawBinding[]): Knex.Raw;
  /** Runs a statement built here; resolves with knex's result for it. */
  run<T = unknown>(statement: Statement): Promise<T>;
  /** Same as `run`, for a statement whose text varies from run to run (SQLite: not kept prepared). */
  runOnce<T = unknown>(statement: Statement): Promise<T>;
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
    runOnce: <T>(statement: Statement) => Promise.resolve(statement as unknown as PromiseLike<T>),
  };
}

/** Statements built on the knex instance and run as prepared statements on the held SQLite connection. */
function sqliteBatchDb(knex: Knex, connection: SqliteConnection): BatchDb {
  return {
    table: (name) => knex(name),
    raw: (sql, bindings = []) => knex.raw(sql, bindings),
    run: async <T>(statement: Statement) => (await runPrepared(knex, connection, statement)) as T,
    runOnce: async <T>(statement: Statement) => (await runOnce(knex, connection, statement)) as T,
  };
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
    return inSqliteTransaction(this.knex, (connection) => work(sqliteBatchDb(this.knex, connection)));
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
