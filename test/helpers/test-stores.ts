/** A fresh migrated database for tests: a temporary SQLite file by default, or a throwaway PostgreSQL schema. */
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { newHexId } from '../../src/shared/ids.js';
import { createKnex, createStores, runMigrations, type Knex, type Stores } from '../../src/storage/index.js';

export interface TestStores {
  stores: Stores;
  knex: Knex;
  /** The database URL the stores run on (a sqlite: URL of the temporary file, or the PostgreSQL URL). */
  url: string;
  /** Destroys the knex pool and removes the temporary database (drops the PostgreSQL schema). */
  close(): Promise<void>;
}

export interface TestStoresOptions {
  /** A `postgres://` URL to run on a fresh schema of that database, or a `sqlite:` URL to use as is. */
  url?: string;
}

/**
 * One migrated SQLite file per test process, copied for each fresh database: migrating a new file costs about 120 ms of
 * CPU (every migration in its own transaction), and a test process makes dozens. The copy is then migrated like any
 * database (`runMigrations` finds nothing left to do), so a copy never differs from a freshly migrated file.
 */
let template: Promise<string> | undefined;

function migratedTemplate(): Promise<string> {
  template ??= (async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sandpiper-test-template-'));
    process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
    const file = join(dir, 'template.db');
    const knex = createKnex(`sqlite:${file}`);
    try {
      await runMigrations(knex);
      // Everything in the main file, so copying that one file copies the database.
      await knex.raw('PRAGMA wal_checkpoint(TRUNCATE)');
    } finally {
      await knex.destroy();
    }
    return file;
  })();
  return template;
}

async function createSqliteStores(): Promise<TestStores> {
  const dir = mkdtempSync(join(tmpdir(), 'sandpiper-test-db-'));
  const file = join(dir, 'sandpiper.db');
  try {
    copyFileSync(await migratedTemplate(), file);
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
  const url = `sqlite:${file}`;
  const knex = createKnex(url);
  const opened: { stores?: Stores } = {};
  const close = async (): Promise<void> => {
    try {
      // A write handed in behind (a ledger row, a live state) commits before the pool goes; else its connection
      // request waits out knex's 60 s acquire timeout and holds the process.
      await opened.stores?.settleWrites?.();
      await knex.destroy();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  };
  try {
    await runMigrations(knex);
  } catch (error) {
    await close();
    throw error;
  }
  const stores = createStores(knex);
  opened.stores = stores;
  return { stores, knex, url, close };
}

async function createPostgresStores(url: string): Promise<TestStores> {
  const schema = `sp_test_${newHexId(6)}`;
  const admin = createKnex(url);
  await admin.raw(`CREATE SCHEMA ${schema}`);
  await admin.destroy();
  const knex = createKnex(url, { searchPath: [schema] });
  const opened: { stores?: Stores } = {};
  const close = async (): Promise<void> => {
    await opened.stores?.settleWrites?.();
    await knex.destroy();
    const dropper = createKnex(url);
    try {
      await dropper.raw(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    } finally {
      await dropper.destroy();
    }
  };
  try {
    await runMigrations(knex);
  } catch (error) {
    await close();
    throw error;
  }
  const stores = createStores(knex);
  opened.stores = stores;
  return { stores, knex, url, close };
}

/** Opens and migrates a fresh database; always call `close()` (in `after`/`finally`) so the process can exit. */
export async function createTestStores(options: TestStoresOptions = {}): Promise<TestStores> {
  const url = options.url;
  if (url === undefined) return createSqliteStores();
  if (/^postgres(ql)?:\/\//.test(url)) return createPostgresStores(url);
  const knex = createKnex(url);
  await runMigrations(knex);
  return { stores: createStores(knex), knex, url, close: () => knex.destroy() };
}

/** The PostgreSQL URL for contract tests, or undefined when PostgreSQL tests should be skipped. */
export function testPostgresUrl(): string | undefined {
  const url = process.env.SANDPIPER_TEST_PG_URL;
  return url === undefined || url === '' ? undefined : url;
}
