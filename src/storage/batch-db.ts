/**
 * What a hot-path write gets to run its statements: builders made with `table`/`raw` and run with `run`. On
 * PostgreSQL that is a knex transaction; on SQLite the batch holds the one connection and runs prepared statements
 * (sqlite-statements.ts, ADR 0029). A write must run every statement through `run`: a builder awaited by itself
 * would queue for the connection the batch holds.
 */
import type { Knex } from 'knex';
import { isSqlite, runPrepared, withSqliteConnection, type SqliteConnection, type Statement } from './sqlite-statements.js';

export type { Statement } from './sqlite-statements.js';

export interface BatchDb {
  table(name: string): Knex.QueryBuilder;
  raw(sql: string, bindings?: readonly Knex.RawBinding[]): Knex.Raw;
  /** Runs a statement built here; resolves with knex's result for it. */
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

/** Statements built on the knex instance and run as prepared statements on the held SQLite connection. */
function sqliteBatchDb(knex: Knex, connection: SqliteConnection): BatchDb {
  return {
    table: (name) => knex(name),
    raw: (sql, bindings = []) => knex.raw(sql, bindings),
    run: async <T>(statement: Statement) => (await runPrepared(knex, connection, statement)) as T,
  };
}

/** Runs batches of statements on one database, in a transaction or (one statement) without. */
export class BatchRunner {
  /** SQLite only: the transaction statements, kept prepared. */
  private readonly control: { begin: Knex.Raw; commit: Knex.Raw; rollback: Knex.Raw } | undefined;

  constructor(private readonly knex: Knex) {
    this.control = isSqlite(knex) ? { begin: knex.raw('BEGIN'), commit: knex.raw('COMMIT'), rollback: knex.raw('ROLLBACK') } : undefined;
  }

  /** `work` inside one transaction: committed when it resolves, rolled back when it throws. */
  transaction<T>(work: (db: BatchDb) => Promise<T>): Promise<T> {
    const control = this.control;
    if (control === undefined) return this.knex.transaction((trx) => work(knexBatchDb(trx)));
    return withSqliteConnection(this.knex, async (connection) => {
      await runPrepared(this.knex, connection, control.begin);
      try {
        const value = await work(sqliteBatchDb(this.knex, connection));
        await runPrepared(this.knex, connection, control.commit);
        return value;
      } catch (error) {
        // A failed COMMIT (a lock another process holds past busy_timeout) leaves the transaction open: end it.
        await runPrepared(this.knex, connection, control.rollback).catch(() => undefined);
        throw error;
      }
    });
  }

  /** `work` outside a transaction (one statement commits by itself). */
  alone<T>(work: (db: BatchDb) => Promise<T>): Promise<T> {
    if (this.control === undefined) return work(knexBatchDb(this.knex));
    return withSqliteConnection(this.knex, (connection) => work(sqliteBatchDb(this.knex, connection)));
  }
}
