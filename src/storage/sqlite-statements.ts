/**
 * Statements built with knex and run on SQLite's one connection, the connection the storage layer recorded when the
 * pool created it (the pool's `afterCreate` hook, db.ts), while a public `knex.transaction` holds it. No private knex
 * API is used. A write group's plain writes go to the driver as one script (sqlite-script.ts, batch-db.ts); a
 * statement whose rows are read runs by itself, with bound values, and resolves with what knex returns for it (rows
 * with `returning`, the first row for `first`).
 */
import type { Knex } from 'knex';

/** What the hot path hands in: a knex builder or raw statement, built but never awaited itself. */
export type Statement = Knex.QueryBuilder | Knex.Raw;

type RowsCallback = (error: Error | null, rows?: unknown[]) => void;

/** The node-sqlite3 connection of a SQLite knex instance (its pool holds one). */
export interface SqliteConnection {
  /** Runs a script of statements in one call to SQLite, stopping at the first that fails. */
  exec(sql: string, callback: (error: Error | null) => void): void;
  run(sql: string, callback: (error: Error | null) => void): void;
  all(sql: string, bindings: readonly unknown[], callback: RowsCallback): void;
  /** Serialized mode: each statement sent to the connection waits for those sent before it. */
  serialize(): void;
  close(callback: (error: Error | null) => void): void;
}

/** Where a SQLite knex instance's one connection is recorded by the pool's `afterCreate` hook (db.ts). */
export interface SqliteConnectionSlot {
  current: SqliteConnection | undefined;
}

const slots = new WeakMap<Knex, SqliteConnectionSlot>();

/** Whether `knex` talks to SQLite through node-sqlite3 (the one-connection pool this module runs on). */
export function isSqlite(knex: Knex): boolean {
  return (knex.client as { dialect?: string }).dialect === 'sqlite3';
}

/**
 * Records where `knex`'s SQLite connection is kept (createKnex; the pool's `afterCreate` fills the slot). A failed
 * COMMIT (a lock another process holds past busy_timeout, a full disk) leaves the transaction open and knex does not
 * end it: the ROLLBACK goes to the connection from knex's `query-error` event, which fires before knex releases the
 * connection, and the connection runs statements in the order they were sent (serialized mode, db.ts), so no later
 * statement can join the failed transaction.
 */
export function registerSqliteConnection(knex: Knex, slot: SqliteConnectionSlot): void {
  slots.set(knex, slot);
  knex.on('query-error', (_error: unknown, query: { sql?: unknown }) => {
    // After a COMMIT that SQLite rolled back itself, this ROLLBACK fails harmlessly.
    if (typeof query.sql === 'string' && /^commit\b/i.test(query.sql)) slot.current?.run('ROLLBACK', () => undefined);
  });
}

/**
 * `work` inside one knex transaction, given the connection that transaction holds: the pool has one connection, so
 * while knex's transaction holds it, it is the one `afterCreate` recorded, and nothing else runs on it. Other
 * statements queue in knex's pool meanwhile, in request order.
 */
export function inSqliteTransaction<T>(knex: Knex, work: (connection: SqliteConnection) => Promise<T>): Promise<T> {
  return knex.transaction(() => {
    const connection = slots.get(knex)?.current;
    if (connection === undefined)
      throw new Error('the SQLite connection of this knex instance was not recorded (createKnex)');
    return work(connection);
  });
}

/** A statement compiled for the driver: text with `?` placeholders, its values, and whether its rows are read. */
export interface Compiled {
  sql: string;
  bindings: readonly unknown[];
  method: string;
  /** knex's sqlite3 dialect: writes without `returning` are `run`, everything else `all`. */
  readsRows: boolean;
}

export function compile(knex: Knex, statement: Statement): Compiled {
  const compiled = statement.toSQL() as Knex.Sql | Knex.Sql[];
  if (Array.isArray(compiled)) throw new Error('the statement compiles to several statements');
  const { sql, bindings } = compiled.toNative();
  const method = compiled.method;
  const returning = (compiled as { returning?: unknown }).returning !== undefined;
  // Observers of knex's `query` event (statement counts in tests and benches) see these statements too.
  knex.emit('query', { method, sql, bindings });
  const readsRows = method === 'insert' || method === 'update' ? returning : method !== 'del' && method !== 'counter';
  return { sql, bindings, method, readsRows };
}

/** Runs a statement whose rows are read, with bound values, on a held connection: its rows (`first`: the first). */
export function readRows(connection: SqliteConnection, statement: Compiled): Promise<unknown> {
  return new Promise((resolve, reject) =>
    connection.all(statement.sql, statement.bindings, (error, rows) => {
      if (error) reject(error);
      else resolve(statement.method === 'first' ? rows?.[0] : rows);
    }),
  );
}

/** Runs a script of statements on a held connection in one call to SQLite; rejects with the first failure. */
export function execScript(connection: SqliteConnection, script: string): Promise<void> {
  return new Promise((resolve, reject) => connection.exec(script, (error) => (error ? reject(error) : resolve())));
}
