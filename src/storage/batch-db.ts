/**
 * What a hot-path write gets to run its statements: builders made with `table`/`raw` and run with `run`. On
 * PostgreSQL that is a knex transaction. On SQLite it is the write connection (sqlite-write-connection.ts): a
 * transaction's plain writes are sent to it together with its BEGIN and COMMIT, as one script, when the transaction's
 * work is done, or before a statement whose rows are read (sqlite-script.ts). A write must run every statement through
 * `run`: a builder awaited by itself would run on knex's connection, outside the transaction.
 */
import type { Knex } from 'knex';
import { compile, type Statement } from './sqlite-statements.js';
import { withLiterals } from './sqlite-script.js';
import { writeConnectionOf, type SqliteWriteConnection, type WriteSession } from './sqlite-write-connection.js';

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
 * A write group on SQLite's write connection (sqlite-write-connection.ts): its plain writes are written out with their
 * values (sqlite-script.ts) after a BEGIN and kept, and go to the connection as one script with the COMMIT (`commit`),
 * or before a statement whose rows are read, which runs by itself with bound values inside the open transaction. One
 * call into the driver for a group's writes, its BEGIN and its COMMIT.
 */
class SqliteScriptDb implements BatchDb {
  private script: string[] = [];
  private begun = false;

  constructor(
    private readonly knex: Knex,
    private readonly connection: WriteSession,
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
    return (await this.connection.rows(compiled)) as T;
  }

  /** Sends the kept writes and the COMMIT; resolves once SQLite committed them, rejects with the first failure. */
  commit(): Promise<void> {
    return this.flush(true);
  }

  private async flush(commit = false): Promise<void> {
    const statements = this.script;
    this.script = [];
    const begin = !this.begun;
    this.begun = true;
    if (begin) statements.unshift('BEGIN');
    if (commit) statements.push('COMMIT');
    if (statements.length === 0) return;
    // Each statement ends on its own line: a statement's closing line comment cannot swallow the separator.
    const sent = this.connection.exec(statements.join('\n;\n'));
    if (begin) this.emitControl('BEGIN');
    if (commit) this.emitControl('COMMIT');
    await sent;
  }

  /** BEGIN or COMMIT, shown once sent to observers of knex's `query` event, like the group's statements (compile). */
  private emitControl(sql: string): void {
    this.knex.emit('query', { method: 'raw', sql, bindings: [] });
  }
}

/** Statements run one at a time on SQLite's write connection, with bound values: each resolves with its rows. */
function boundDb(knex: Knex, connection: SqliteWriteConnection): BatchDb {
  return {
    table: (name) => knex(name),
    raw: (sql, bindings = []) => knex.raw(sql, bindings),
    run: <T>(statement: Statement) => {
      const compiled = compile(knex, statement);
      return connection.hold((session) => session.rows(compiled)) as Promise<T>;
    },
  };
}

/** `work` as one transaction on SQLite's write connection, held from BEGIN to COMMIT or ROLLBACK. */
function inScriptTransaction<T>(
  knex: Knex,
  connection: SqliteWriteConnection,
  work: (db: BatchDb) => Promise<T>,
): Promise<T> {
  return connection.hold(async (session) => {
    const db = new SqliteScriptDb(knex, session);
    try {
      const result = await work(db);
      await db.commit();
      return result;
    } catch (error) {
      // A script stops at its first failure, so the transaction may still be open.
      await session.rollback();
      throw error;
    }
  });
}

/**
 * Runs batches of statements on one database, in a transaction or (one statement) without: on the write connection
 * when the database has one (a SQLite file, sqlite-connections.ts decides), otherwise through knex.
 */
export class BatchRunner {
  constructor(private readonly knex: Knex) {}

  /** `work` inside one transaction: committed when it resolves, rolled back when it throws. */
  transaction<T>(work: (db: BatchDb) => Promise<T>): Promise<T> {
    const connection = writeConnectionOf(this.knex);
    if (connection === undefined) return this.knex.transaction((trx) => work(knexBatchDb(trx)));
    return inScriptTransaction(this.knex, connection, work);
  }

  /**
   * `work` outside a transaction (one statement commits by itself), with bound values: on SQLite's write connection,
   * elsewhere through knex's pool like any other query.
   */
  alone<T>(work: (db: BatchDb) => Promise<T>): Promise<T> {
    const connection = writeConnectionOf(this.knex);
    return work(connection === undefined ? knexBatchDb(this.knex) : boundDb(this.knex, connection));
  }
}
