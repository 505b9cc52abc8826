/**
 * The write groups' own connection to a SQLite file, held by the storage layer beside knex's pool (node-sqlite3
 * directly behind the storage port). A group goes to it as one script, BEGIN and COMMIT included: one call into the
 * driver, so one wait for the event loop, where a knex transaction needs three (BEGIN, the script, COMMIT). Its
 * users (the write engine's groups, `BatchRunner.alone`) hold it one at a time, so nothing else can run inside a
 * group's transaction; knex's connection keeps every other statement. Both are connections to one WAL database: a
 * reader sees a group once it committed, and two writers wait for each other (busy_timeout) instead of failing,
 * except a transaction that read before it wrote, which SQLite refuses at once (ADR 0056; durability.md, Known gaps).
 */
import sqlite3 from 'sqlite3';
import type { Knex } from 'knex';
import type { Compiled } from './sqlite-statements.js';

/** The write connection held by one caller: nothing of another caller runs on it until the hold ends. */
export interface WriteSession {
  /** Runs a script of statements in one call to SQLite; rejects with the first failure (the rest do not run). */
  exec(script: string): Promise<void>;
  /** Runs one statement with bound values: its rows (`first`: the first row). */
  rows(statement: Compiled): Promise<unknown>;
  /**
   * Ends the transaction a failed script may have left open. SQLite refusing because none is open is the expected
   * answer when the failure ended it; any other failure leaves its state unknown, so the connection is closed (SQLite
   * rolls back what it had open) and the next hold opens a new one: no later statement can join a transaction left
   * open, and be told it was stored when it never is.
   */
  rollback(): Promise<void>;
}

export class SqliteWriteConnection {
  /** Opened by the first hold (a knex instance connects lazily too); a failed open is tried again by the next hold. */
  private opened: Promise<sqlite3.Database> | undefined;
  private closed = false;
  /** Settles when the last hold asked for has ended: holds run one at a time, in the order they were asked for. */
  private tail: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly filename: string,
    private readonly pragmas: readonly string[],
  ) {}

  /**
   * Runs `work` with the connection to itself, after every hold asked for before it. A transaction that reads rows
   * between its statements spans several calls into the driver, and a failed script leaves its transaction open until
   * the ROLLBACK: no other caller's statement may run in between and join it.
   */
  hold<T>(work: (session: WriteSession) => Promise<T>): Promise<T> {
    const held = this.tail.then(async () => work(this.session(await this.database())));
    // The tail only orders the holds: a failed hold is reported to its own caller, through `held`.
    this.tail = held.catch(() => undefined);
    return held;
  }

  private database(): Promise<sqlite3.Database> {
    if (this.closed) return Promise.reject(new Error('the SQLite write connection is closed'));
    this.opened ??= this.open(this.filename).catch((error: unknown) => {
      this.opened = undefined;
      throw error;
    });
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

  private session(db: sqlite3.Database): WriteSession {
    return {
      exec: (script) => exec(db, script),
      rows: (statement) =>
        new Promise((resolve, reject) =>
          db.all(statement.sql, statement.bindings as unknown[], (error, rows) => {
            if (error) reject(error);
            else resolve(statement.method === 'first' ? rows[0] : rows);
          }),
        ),
      rollback: async () => {
        try {
          await exec(db, 'ROLLBACK');
        } catch (error) {
          if (/no transaction is active/.test(String(error))) return;
          this.opened = undefined;
          await new Promise<void>((resolve) => db.close(() => resolve()));
        }
      },
    };
  }

  /** Closes the connection once the holds asked for have ended; later holds are refused. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    // Every hold has ended, so any open has settled: a failed one was reported to its hold and left `opened` unset.
    await this.tail;
    const db = await this.opened;
    // Every commit is already in the file; a close SQLite refuses leaves nothing to recover, and the process goes on.
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
