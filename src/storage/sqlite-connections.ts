/**
 * A SQLite database's two connections: knex's pool (one connection: every read, and every write outside the write
 * engine) and the write engine's own (sqlite-write-connection.ts), which carries the hot path's write groups as
 * scripts. Both are set up with the same pragmas here, and the write connection closes with the pool's. An in-memory
 * database has only the pool's.
 */
import { dirname, resolve } from 'node:path';
import type { Knex } from 'knex';
import { StorageError } from '../shared/errors.js';
import { createDatabaseDirectory } from './database-directory.js';
import { registerWriteConnection, SqliteWriteConnection } from './sqlite-write-connection.js';

/**
 * busy_timeout first, so that every later statement on the connection waits for locks instead of failing (the two
 * connections of one database wait for each other's writes this way).
 * WAL with synchronous=NORMAL: a commit is an append to the WAL without an fsync (the WAL is synced at
 * checkpoints). A committed transaction survives a crash or kill of the process; only an OS crash or power
 * loss can undo the last commits, never corrupt the file. Recorded in docs/decisions/0011-hot-path-writes.md.
 */
export const SQLITE_PRAGMAS = [
  'PRAGMA busy_timeout=5000',
  'PRAGMA journal_mode=WAL',
  'PRAGMA synchronous=NORMAL',
  'PRAGMA foreign_keys=ON',
];

/** The surface of a node-sqlite3 connection that the pool hook uses. */
interface PoolConnection {
  run(sql: string, callback: (error: Error | null) => void): void;
  /** Serialized mode: each statement sent to the connection waits for those sent before it. */
  serialize(): void;
  once(event: 'close', listener: () => void): void;
}

type PoolDone = (error: Error | null, connection: unknown) => void;

function runSteps(connection: PoolConnection, steps: readonly string[], done: PoolDone): void {
  const [first, ...rest] = steps;
  if (first === undefined) {
    done(null, connection);
    return;
  }
  connection.run(first, (error) => {
    if (error) done(error, connection);
    else runSteps(connection, rest, done);
  });
}

/** What a SQLite knex instance is built from, and what is recorded once it exists. */
export interface SqliteSetup {
  config: Knex.Config;
  register(knex: Knex): void;
}

/**
 * The knex config of `sqlite:<path>` and the write connection beside its pool. `sqlite::memory:` has none: an in-memory
 * database lives in its one connection, so its write groups run as knex transactions on the pool, as on PostgreSQL.
 */
export function sqliteSetup(databaseUrl: string): SqliteSetup {
  const path = databaseUrl.slice('sqlite:'.length);
  if (path === '') throw new StorageError('CONFIG_INVALID', 'database.url: sqlite URL has no file path');
  const memory = path === ':memory:';
  const filename = memory ? ':memory:' : resolve(path.startsWith('//') ? path.slice(2) : path);
  if (!memory) createDatabaseDirectory(dirname(filename));
  const writer = memory ? undefined : new SqliteWriteConnection(filename, SQLITE_PRAGMAS);
  let pooled: PoolConnection | undefined;
  const afterCreate = (connection: PoolConnection, done: PoolDone): void => {
    pooled = connection;
    if (writer !== undefined) connection.once('close', () => void writer.close());
    // The driver's serialized mode: a statement sent to the connection starts only after those sent before it ended.
    // knex sends one at a time, but the ROLLBACK after a failed COMMIT (endFailedCommits) is sent beside knex, and
    // without it the next write could run inside the failed transaction first.
    connection.serialize();
    runSteps(connection, SQLITE_PRAGMAS, done);
  };
  return {
    config: {
      client: 'sqlite3',
      connection: { filename },
      useNullAsDefault: true,
      pool: {
        min: 1,
        max: 1,
        afterCreate,
        // An in-memory database lives and dies with its one connection.
        ...(memory ? { idleTimeoutMillis: Number.MAX_SAFE_INTEGER } : {}),
      },
    },
    register: (knex) => {
      if (writer !== undefined) registerWriteConnection(knex, writer);
      endFailedCommits(knex, () => pooled);
    },
  };
}

/**
 * A failed COMMIT of a knex transaction (a lock another process holds past busy_timeout, a full disk) leaves the
 * transaction open and knex does not end it: the ROLLBACK goes to the connection from knex's `query-error` event, which
 * fires before knex releases the connection, and the connection runs statements in the order they were sent, so no
 * later statement can join the failed transaction.
 */
function endFailedCommits(knex: Knex, pooled: () => PoolConnection | undefined): void {
  knex.on('query-error', (_error: unknown, query: { sql?: unknown }) => {
    // After a COMMIT that SQLite rolled back itself, this ROLLBACK fails harmlessly (the callback ignores it).
    if (typeof query.sql === 'string' && /^commit\b/i.test(query.sql)) pooled()?.run('ROLLBACK', () => undefined);
  });
}
