/** The knex instance (SQLite or PostgreSQL from a database URL) and the migration runner. */
import knexPkg from 'knex';
import type { Knex } from 'knex';
import { StorageError } from '../shared/errors.js';
import { migrationSource } from './migration-source.js';
import { sqliteSetup } from './sqlite-connections.js';
import { toStorageError } from './storage-errors.js';

export type { Knex } from 'knex';

type KnexFactory = (config: Knex.Config) => Knex;

// Under Node ESM the named `knex` export is undefined; the callable is the default export.
const knexFactory: KnexFactory =
  (knexPkg as unknown as { default?: KnexFactory }).default ?? (knexPkg as unknown as KnexFactory);

export interface CreateKnexOptions {
  /** PostgreSQL only: schemas to search (first one receives new tables), e.g. a throwaway test schema. */
  searchPath?: string[];
}

// knex prints pool and driver failures to the console itself (with stacks); they reach callers as errors anyway.
const quietKnexLog: Knex.Logger = {
  warn: () => undefined,
  error: () => undefined,
  deprecate: () => undefined,
  debug: () => undefined,
};

function postgresConfig(databaseUrl: string, options: CreateKnexOptions): Knex.Config {
  return {
    client: 'pg',
    connection: databaseUrl,
    pool: { min: 0, max: 10 },
    ...(options.searchPath ? { searchPath: options.searchPath } : {}),
  };
}

/**
 * Builds a knex instance for `sqlite:<path>` (or `sqlite::memory:`) or a `postgres://` / `postgresql://` URL.
 * Does not connect yet. Throws StorageError CONFIG_INVALID for any other scheme; the URL never appears in errors.
 */
export function createKnex(databaseUrl: string, options: CreateKnexOptions = {}): Knex {
  let config: Knex.Config;
  const sqlite = databaseUrl.startsWith('sqlite:') ? sqliteSetup(databaseUrl) : undefined;
  if (sqlite !== undefined) config = sqlite.config;
  else if (/^postgres(ql)?:\/\//.test(databaseUrl)) config = postgresConfig(databaseUrl, options);
  else throw new StorageError('CONFIG_INVALID', 'database.url: expected sqlite:<path> or postgres://…');
  try {
    const knex = knexFactory({ ...config, log: quietKnexLog });
    if (sqlite !== undefined) sqlite.register(knex);
    else postgresUrls.set(knex, databaseUrl);
    return knex;
  } catch (error) {
    throw toStorageError(error, 'open database');
  }
}

const postgresUrls = new WeakMap<Knex, string>();

/**
 * The URL a PostgreSQL knex instance was built from (`createKnex`), for a connection of its own outside the pool: the
 * LISTEN of the handoff wake-up. Undefined for SQLite.
 */
export function postgresUrlOf(knex: Knex): string | undefined {
  return postgresUrls.get(knex);
}

/** True when the knex instance talks to PostgreSQL. */
export function isPostgres(knex: Knex): boolean {
  return knex.client.config.client === 'pg';
}

// Network and PostgreSQL connection-phase codes (28xxx: authentication, 3D000: no such database).
const CONNECT_CODES = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'ETIMEDOUT',
  'ECONNRESET',
  'EHOSTUNREACH',
  '28P01',
  '28000',
  '3D000',
]);

/**
 * Runs `work` while a transaction of its own holds a PostgreSQL advisory lock of the current schema, so instances
 * starting at once on a fresh database migrate one after another (the later ones find nothing to do) instead of racing
 * to create knex's own tables (42P07). The lock is transaction-scoped: it ends with the transaction, also when `work`
 * fails. SQLite needs none: a second instance is refused there (ADR 0023).
 */
async function oneMigratorAtATime<T>(knex: Knex, work: () => Promise<T>): Promise<T> {
  if (!isPostgres(knex)) return work();
  return knex.transaction(async (lock) => {
    await lock.raw('SELECT pg_advisory_xact_lock(hashtext(current_schema()))');
    return work();
  });
}

/** Applies every pending migration (a no-op when up to date); returns the names applied. */
export async function runMigrations(knex: Knex): Promise<string[]> {
  try {
    const [, applied] = (await oneMigratorAtATime(knex, () => knex.migrate.latest({ migrationSource }))) as [
      number,
      string[],
    ];
    return applied;
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    if (typeof code === 'string' && CONNECT_CODES.has(code)) {
      // The redacted driver error is kept as the cause; the message never carries the URL or the password.
      const cause = toStorageError(error, 'connect');
      throw new StorageError('STORAGE_ERROR', `cannot connect to the database (${code})`, {
        cause,
        retryable: true,
        data: { driverCode: code },
      });
    }
    throw toStorageError(error, 'migrate');
  }
}

/** Rolls back the last batch of migrations (tests and operators only). */
export async function rollbackMigrations(knex: Knex, all = false): Promise<string[]> {
  try {
    const [, rolledBack] = (await knex.migrate.rollback({ migrationSource }, all)) as [number, string[]];
    return rolledBack;
  } catch (error) {
    throw toStorageError(error, 'rollback');
  }
}

/** Names of the migrations not applied yet (`sandpiper doctor`); connection failures as in `runMigrations`. */
export async function pendingMigrations(knex: Knex): Promise<string[]> {
  try {
    const [, pending] = (await knex.migrate.list({ migrationSource })) as [
      unknown[],
      Array<{ file?: string; name?: string } | string>,
    ];
    return pending.map((entry) => (typeof entry === 'string' ? entry : (entry.file ?? entry.name ?? '?')));
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    if (typeof code === 'string' && CONNECT_CODES.has(code)) {
      throw new StorageError('STORAGE_ERROR', `cannot connect to the database (${code})`, {
        cause: toStorageError(error, 'connect'),
        retryable: true,
      });
    }
    throw toStorageError(error, 'migrate');
  }
}
