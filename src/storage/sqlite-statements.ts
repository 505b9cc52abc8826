/**
 * Statements built with knex and run on SQLite's one connection as prepared statements, kept per connection. For a
 * hot-path write, knex's runner (pool round trip, query object, response handling) costs about as much as the
 * statement itself; here a batch holds the connection through a public `knex.transaction` and runs each statement
 * through a cached `sqlite3.Statement` on the connection the storage layer recorded when the pool created it (the
 * pool's `afterCreate` hook, db.ts). No private knex API is used. The results are knex's own (rows with `returning`,
 * `[lastID]` for a plain insert, the changed row count for an update or delete), so a store reads the same values
 * on either path.
 */
import type { Knex } from 'knex';
import { LRUCache } from 'lru-cache';

/** What the hot path hands in: a knex builder or raw statement, built but never awaited itself. */
export type Statement = Knex.QueryBuilder | Knex.Raw;

interface RunContext {
  lastID: number;
  changes: number;
}
type StatementCallback = (this: RunContext, error: Error | null, rows?: unknown[]) => void;

interface PreparedStatement {
  run(bindings: readonly unknown[], callback: StatementCallback): void;
  all(bindings: readonly unknown[], callback: StatementCallback): void;
  finalize(callback?: () => void): void;
}

/** The node-sqlite3 connection of a SQLite knex instance (its pool holds one). */
export interface SqliteConnection {
  prepare(sql: string, callback: (error: Error | null) => void): PreparedStatement;
  run(sql: string, callback: (error: Error | null) => void): void;
  run(sql: string, bindings: readonly unknown[], callback: StatementCallback): void;
  all(sql: string, bindings: readonly unknown[], callback: StatementCallback): void;
  /** Serialized mode: each statement sent to the connection waits for those sent before it. */
  serialize(): void;
  close(callback: (error: Error | null) => void): void;
}

/** Where a SQLite knex instance's one connection is recorded by the pool's `afterCreate` hook (db.ts). */
export interface SqliteConnectionSlot {
  current: SqliteConnection | undefined;
}

/** Distinct statements kept prepared per connection (the hot path has a few dozen shapes). */
const PREPARED_LIMIT = 128;
const prepared = new WeakMap<SqliteConnection, LRUCache<string, Promise<PreparedStatement>>>();
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
 * while knex's transaction holds it, it is the one `afterCreate` recorded, and nothing else runs on it. Statements
 * run on it as prepared statements (`runPrepared`); other statements queue in knex's pool meanwhile, in request order.
 */
export function inSqliteTransaction<T>(knex: Knex, work: (connection: SqliteConnection) => Promise<T>): Promise<T> {
  return knex.transaction(() => {
    const connection = slots.get(knex)?.current;
    if (connection === undefined)
      throw new Error('the SQLite connection of this knex instance was not recorded (createKnex)');
    return work(connection);
  });
}

interface Compiled {
  sql: string;
  bindings: readonly unknown[];
  method: string;
  returning: boolean;
}

function compile(knex: Knex, statement: Statement): Compiled {
  const compiled = statement.toSQL() as Knex.Sql | Knex.Sql[];
  if (Array.isArray(compiled)) throw new Error('runPrepared: the statement compiles to several statements');
  const { sql, bindings } = compiled.toNative();
  const method = compiled.method;
  const returning = (compiled as { returning?: unknown }).returning !== undefined;
  // Observers of knex's `query` event (statement counts in tests and benches) see these statements too.
  knex.emit('query', { method, sql, bindings });
  return { sql, bindings, method, returning };
}

/** Runs one statement on a held connection; resolves with what knex would have returned for it. */
export async function runPrepared(knex: Knex, connection: SqliteConnection, statement: Statement): Promise<unknown> {
  const { sql, bindings, method, returning } = compile(knex, statement);
  const prepared = await preparedStatement(connection, sql);
  return new Promise((resolve, reject) => {
    const done: StatementCallback = function (error, rows) {
      if (error) {
        forget(connection, sql);
        reject(error);
      } else resolve(responseOf(method, returning, rows, this));
    };
    if (returnsRows(method, returning)) prepared.all(bindings, done);
    else prepared.run(bindings, done);
  });
}

/**
 * Runs one statement on a held connection without keeping it prepared (the driver prepares, runs and finalizes it):
 * for a statement whose text changes from one run to the next (a multi-row insert), which would only push the kept
 * statements out of the cache.
 */
export function runOnce(knex: Knex, connection: SqliteConnection, statement: Statement): Promise<unknown> {
  const { sql, bindings, method, returning } = compile(knex, statement);
  return new Promise((resolve, reject) => {
    const done: StatementCallback = function (error, rows) {
      if (error) reject(error);
      else resolve(responseOf(method, returning, rows, this));
    };
    if (returnsRows(method, returning)) connection.all(sql, bindings, done);
    else connection.run(sql, bindings, done);
  });
}

/** knex's sqlite3 dialect: writes without `returning` are `run`, everything else `all`. */
function returnsRows(method: string, returning: boolean): boolean {
  if (method === 'insert' || method === 'update') return returning;
  return method !== 'del' && method !== 'counter';
}

function responseOf(method: string, returning: boolean, rows: unknown[] | undefined, context: RunContext): unknown {
  switch (method) {
    case 'first':
      return rows?.[0];
    case 'insert':
      return returning && rows ? rows : [context.lastID];
    case 'update':
      return returning && rows ? rows : context.changes;
    case 'del':
    case 'counter':
      return context.changes;
    default:
      return rows;
  }
}

/** The cached statement for `sql`, prepared on first use (a statement that fails to prepare is not kept). */
function preparedStatement(connection: SqliteConnection, sql: string): Promise<PreparedStatement> {
  let cache = prepared.get(connection);
  if (cache === undefined) {
    cache = new LRUCache({
      max: PREPARED_LIMIT,
      dispose: (statement) =>
        void statement.then(
          (s) => s.finalize(),
          () => undefined,
        ),
    });
    prepared.set(connection, cache);
  }
  const cached = cache.get(sql);
  if (cached !== undefined) return cached;
  const preparing = new Promise<PreparedStatement>((resolve, reject) => {
    const statement = connection.prepare(sql, (error) => (error ? reject(error) : resolve(statement)));
  });
  cache.set(sql, preparing);
  preparing.catch(() => forget(connection, sql));
  return preparing;
}

function forget(connection: SqliteConnection, sql: string): void {
  prepared.get(connection)?.delete(sql);
}

/** Finalizes the statements kept for `connection`: SQLite refuses to close a connection with live statements. */
export async function finalizePrepared(connection: SqliteConnection): Promise<void> {
  const cache = prepared.get(connection);
  if (cache === undefined) return;
  prepared.delete(connection);
  const statements = await Promise.allSettled([...cache.values()]);
  await Promise.all(
    statements.map((s) =>
      s.status === 'fulfilled' ? new Promise<void>((resolve) => s.value.finalize(() => resolve())) : undefined,
    ),
  );
}
