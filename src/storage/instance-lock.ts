/**
 * The single-instance lock of a SQLite database (ADR 0023). `sandpiper start` holds a write lock on
 * `<database>-instance.lock`, a tiny SQLite file next to the database, for as long as it runs, and records there who it
 * is. The lock is the operating system's (SQLite's fcntl lock on that file): the kernel drops it when the process ends in
 * any way, SIGKILL included, so a lock is never stale and two starts racing at the same moment cannot both win. Admin
 * commands never touch the file; they keep working on the database beside a running gateway.
 */
import { hostname } from 'node:os';
import path from 'node:path';
import sqlite3 from 'sqlite3';
import { StorageError } from '../shared/errors.js';
import { err, ok, type Result } from '../shared/result.js';
import { isoNow } from '../shared/time.js';
import { createDatabaseDirectory } from './database-directory.js';

/** Who holds the lock, as the holder recorded it. */
export interface LockHolder {
  instanceId: string;
  pid: number;
  host: string;
  since: string;
}

export type LockRefusal =
  /** Another live process holds the lock (`holder` is undefined when it has not recorded itself yet). */
  | { kind: 'held'; file: string; holder: LockHolder | undefined }
  /** The lock file cannot be created or used (read-only directory, not a lock file, …). */
  | { kind: 'unavailable'; file: string; reason: string };

export interface InstanceLock {
  readonly file: string;
  /** Gives the lock up (graceful stop); safe to call twice. */
  release(): Promise<void>;
}

/** The SQLite file of a `sqlite:` URL (absolute), or undefined for PostgreSQL and in-memory databases (no lock needed). */
export function sqliteDatabaseFile(databaseUrl: string): string | undefined {
  if (!databaseUrl.startsWith('sqlite:')) return undefined;
  const file = databaseUrl.slice('sqlite:'.length);
  if (file === '' || file === ':memory:') return undefined;
  return path.resolve(file.startsWith('//') ? file.slice(2) : file);
}

export function instanceLockFile(databaseFile: string): string {
  return `${databaseFile}-instance.lock`;
}

const HOLDER_TABLE =
  'CREATE TABLE IF NOT EXISTS holder (id INTEGER PRIMARY KEY CHECK (id = 1), instance_id TEXT NOT NULL, pid INTEGER NOT NULL, host TEXT NOT NULL, since TEXT NOT NULL)';

function openDatabase(file: string): Promise<sqlite3.Database> {
  return new Promise((resolve, reject) => {
    const db = new sqlite3.Database(file, sqlite3.OPEN_READWRITE | sqlite3.OPEN_CREATE, (error) =>
      error ? reject(error) : resolve(db),
    );
  });
}

function exec(db: sqlite3.Database, sql: string): Promise<void> {
  return new Promise((resolve, reject) => db.exec(sql, (error) => (error ? reject(error) : resolve())));
}

function run(db: sqlite3.Database, sql: string, params: unknown[]): Promise<void> {
  return new Promise((resolve, reject) => db.run(sql, params, (error) => (error ? reject(error) : resolve())));
}

function closeDatabase(db: sqlite3.Database): Promise<void> {
  return new Promise((resolve) => db.close(() => resolve()));
}

function sqliteCode(error: unknown): string {
  const code = (error as { code?: unknown }).code;
  return typeof code === 'string' ? code : 'error';
}

const isBusy = (error: unknown): boolean =>
  sqliteCode(error) === 'SQLITE_BUSY' || sqliteCode(error) === 'SQLITE_LOCKED';

/** The recorded holder; undefined while a starting holder has not committed its row yet (or the row is unreadable). */
async function readHolder(db: sqlite3.Database): Promise<LockHolder | undefined> {
  // A holder commits its row under a brief exclusive lock; a reader waits that long rather than failing.
  db.configure('busyTimeout', 1000);
  const row = await new Promise<Record<string, unknown> | undefined>((resolve) => {
    db.get(
      'SELECT instance_id, pid, host, since FROM holder WHERE id = 1',
      (error, found: Record<string, unknown> | undefined) => resolve(error ? undefined : found),
    );
  });
  if (row === undefined) return undefined;
  return {
    instanceId: String(row['instance_id']),
    pid: Number(row['pid']),
    host: String(row['host']),
    since: String(row['since']),
  };
}

/** `BEGIN IMMEDIATE`: takes the file's write lock, or false at once when another connection holds it. */
async function tryWriteLock(db: sqlite3.Database): Promise<boolean> {
  db.configure('busyTimeout', 0);
  try {
    await exec(db, 'BEGIN IMMEDIATE');
    return true;
  } catch (error) {
    if (isBusy(error)) return false;
    throw error;
  }
}

function unavailableReason(error: unknown): string {
  const code = sqliteCode(error);
  if (code === 'SQLITE_CANTOPEN' || code === 'SQLITE_READONLY' || code === 'SQLITE_PERM')
    return `${code}: the directory or the file is not writable`;
  if (code === 'SQLITE_NOTADB' || code === 'SQLITE_CORRUPT')
    return `${code}: not a lock file; remove it while no gateway runs`;
  return code;
}

/**
 * Takes the lock of `databaseFile` for `instanceId`. The holder writes its row and commits, then keeps an open write
 * transaction (SQLite's RESERVED lock): others can still read who holds it, and nobody else can begin a write until the
 * holder's process ends. A start that slips in between the commit and the final lock simply wins; the other is refused.
 */
export async function acquireInstanceLock(
  databaseFile: string,
  instanceId: string,
): Promise<Result<InstanceLock, LockRefusal>> {
  const file = instanceLockFile(databaseFile);
  let db: sqlite3.Database;
  try {
    db = await openDatabase(file);
  } catch (error) {
    return err({ kind: 'unavailable', file, reason: unavailableReason(error) });
  }
  try {
    // The journal stays in memory: the file holds one row, and the directory may not take new files.
    await exec(db, 'PRAGMA journal_mode=MEMORY');
    if (!(await tryWriteLock(db))) return await refuse(db, file);
    await exec(db, HOLDER_TABLE);
    await run(db, 'INSERT OR REPLACE INTO holder (id, instance_id, pid, host, since) VALUES (1, ?, ?, ?, ?)', [
      instanceId,
      process.pid,
      hostname(),
      isoNow(),
    ]);
    await exec(db, 'COMMIT');
    if (!(await tryWriteLock(db))) return await refuse(db, file);
  } catch (error) {
    await closeDatabase(db);
    return err({ kind: 'unavailable', file, reason: unavailableReason(error) });
  }
  return ok(heldLock(db, file, instanceId));
}

async function refuse(db: sqlite3.Database, file: string): Promise<Result<never, LockRefusal>> {
  const holder = await readHolder(db);
  await closeDatabase(db);
  return err({ kind: 'held', file, holder });
}

function heldLock(db: sqlite3.Database, file: string, instanceId: string): InstanceLock {
  let released: Promise<void> | undefined;
  return {
    file,
    release() {
      released ??= (async () => {
        // Best effort: closing the connection below releases the OS lock whatever these two statements do.
        await exec(db, 'ROLLBACK').catch(() => undefined);
        await run(db, 'DELETE FROM holder WHERE instance_id = ?', [instanceId]).catch(() => undefined);
        await closeDatabase(db);
      })();
      return released;
    },
  };
}

/** The one-line refusal an operator reads (no stack): which database, who runs on it, what to do instead. */
export function describeLockRefusal(databaseFile: string, refusal: LockRefusal): string {
  if (refusal.kind === 'unavailable') {
    return `cannot take the instance lock ${refusal.file} (${refusal.reason}); sandpiper start needs a writable gateway.data_dir`;
  }
  const holder = refusal.holder;
  const who = holder
    ? `pid ${holder.pid} on ${holder.host}, instance ${holder.instanceId}, since ${holder.since}Z`
    : `its lock ${refusal.file} is held`;
  return `another sandpiper is already running on the SQLite database ${databaseFile} (${who}); stop it first, or use PostgreSQL (database.url) to run several instances`;
}

/**
 * `sandpiper start`'s hook: on a SQLite file, takes its lock or throws (ALREADY_RUNNING, exit 2; STORAGE_ERROR when the
 * lock cannot be taken at all). PostgreSQL and in-memory databases need no lock (undefined): many instances may share one.
 */
export async function lockSqliteInstance(databaseUrl: string, instanceId: string): Promise<InstanceLock | undefined> {
  const databaseFile = sqliteDatabaseFile(databaseUrl);
  if (databaseFile === undefined) return undefined;
  // The same one-line failure as opening the database would give (the directory and the errno code).
  createDatabaseDirectory(path.dirname(databaseFile));
  const taken = await acquireInstanceLock(databaseFile, instanceId);
  if (taken.ok) return taken.value;
  const code = taken.error.kind === 'held' ? 'ALREADY_RUNNING' : 'STORAGE_ERROR';
  throw new StorageError(code, describeLockRefusal(databaseFile, taken.error));
}
