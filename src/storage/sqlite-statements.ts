/**
 * Statements built with knex and compiled for SQLite's write connection (sqlite-write-connection.ts), which runs them
 * itself: knex builds the SQL (its public `toSQL`), the driver runs it. A write group's plain writes go to the driver
 * as one script (sqlite-script.ts, batch-db.ts); a statement whose rows are read runs by itself, with bound values.
 */
import type { Knex } from 'knex';

/** What the hot path hands in: a knex builder or raw statement, built but never awaited itself. */
export type Statement = Knex.QueryBuilder | Knex.Raw;

/** Whether `knex` talks to SQLite through node-sqlite3. */
export function isSqlite(knex: Knex): boolean {
  return (knex.client as { dialect?: string }).dialect === 'sqlite3';
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
