/**
 * The write groups' own connection to a SQLite file, held by the storage layer beside knex's pool (node-sqlite3
 * directly behind the storage port). A group goes to it as one script, BEGIN and COMMIT included: one call into the
 * driver, so one wait for the event loop, where a knex transaction needs three (BEGIN, the script, COMMIT). Only the
 * write engine uses it, one group at a time, so nothing else can run inside a group's transaction; knex's connection
 * keeps every other statement. Both are connections to one WAL database: a reader sees a group once it committed, and
 * two writers wait for each other (busy_timeout) instead of failing.
 */
import sqlite3 from 'sqlite3';
import type { Knex } from 'knex';
import type { Compiled } from './sqlite-statements.js';

export class SqliteWriteConnection {
  /** Opened by the first statement (a knex instance connects lazily too); a failure to open rejects each statement. */
  private opened: Promise<sqlite3.Database> | undefined;
  private closed = false;

  constructor(
    private readonly filename: string,
    private readonly pragmas: readonly string[],
  ) {}

  private database(): Promise<sqlite3.Database> {
    if (this.closed) return Promise.reject(new Error('the SQLite write connection is closed'));
    this.opened ??= this.open(this.filename);
    return this.opened;
  }

  private async open(filename: string): Promise<sqlite3.Database> {
    const db = await new Promise<sqlite3.Database>((resolve, reject) => {
      const opened: sqlite3.Database = new sqlite3.Database(filename, (error) =>
        error ? reject(error) : resolve(opened),
      );
    });
    // Serialized mode: a statement sent to the connection starts only after those sent before it ended.
    db.serialize();
    await exec(db, this.pragmas.map((pragma) => `${pragma};`).join('\n'));
    return db;
  }

  /** Runs a script of statements in one call to SQLite; rejects with the first failure (the rest do not run). */
  async exec(script: string): Promise<void> {
    await exec(await this.database(), script);
  }

  /** Runs one statement with bound values: its rows (`first`: the first row). */
  async rows(statement: Compiled): Promise<unknown> {
    const db = await this.database();
    return new Promise((resolve, reject) =>
      db.all(statement.sql, statement.bindings as unknown[], (error, rows) => {
        if (error) reject(error);
        else resolve(statement.method === 'first' ? rows[0] : rows);
      }),
    );
  }

  /** Ends a transaction a failed script left open; harmless when none is (SQLite refuses, and that is ignored). */
  async rollback(): Promise<void> {
    await this.exec('ROLLBACK').catch(() => undefined);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    const db = await this.opened?.catch(() => undefined);
    if (db !== undefined) await new Promise<void>((resolve) => db.close(() => resolve()));
  }
}

function exec(db: sqlite3.Database, script: string): Promise<void> {
  return new Promise((resolve, reject) => db.exec(script, (error) => (error ? reject(error) : resolve())));
}

const connections = new WeakMap<Knex, SqliteWriteConnection>();

/** Records the write connection of a SQLite knex instance (createKnex; none for an in-memory database). */
export function registerWriteConnection(knex: Knex, connection: SqliteWriteConnection): void {
  connections.set(knex, connection);
}

/** The write connection of a SQLite knex instance on a file. */
export function writeConnectionOf(knex: Knex): SqliteWriteConnection | undefined {
  return connections.get(knex);
}
