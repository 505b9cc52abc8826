/**
 * PostgreSQL for the multi-instance tests and bench: one fresh database (`sp_cluster_<hex>`) per cluster on the server
 * of SANDPIPER_TEST_PG_URL, migrated by the test process before any instance starts (so three instances never race
 * the migration lock), dropped afterwards. The bench may also start a throwaway server, as `.ci/run` does.
 */
import { spawnSync } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { freePort } from '../fakes/mcp-servers.js';
import path from 'node:path';
import { createKnex, createStores, runMigrations, type Knex, type Stores } from '../../src/storage/index.js';
import { createDatabaseOn } from './throwaway-postgres.js';

export interface ClusterDatabase {
  /** The URL the instances are configured with. */
  url: string;
  name: string;
  knex: Knex;
  stores: Stores;
  /** Closes the test's pool and drops the database (instances must have exited). */
  drop(): Promise<void>;
}

/** Creates and migrates a fresh database on the server of `serverUrl`. */
export async function createClusterDatabase(serverUrl: string): Promise<ClusterDatabase> {
  const database = await createDatabaseOn(serverUrl, 'sp_cluster');
  const knex = createKnex(database.url);
  const drop = async (): Promise<void> => {
    await knex.destroy();
    await database.drop();
  };
  try {
    await runMigrations(knex);
  } catch (error) {
    await drop();
    throw error;
  }
  return { url: database.url, name: database.name, knex, stores: createStores(knex), drop };
}

export interface ThrowawayPostgres {
  url: string;
  stop(): void;
}

/** Starts a PostgreSQL server in a temporary folder as `.ci/run` does (needs root and the Debian packages). */
export async function startThrowawayPostgres(port?: number): Promise<ThrowawayPostgres> {
  const root = '/usr/lib/postgresql';
  const versions = existsSync(root)
    ? readdirSync(root).filter((entry) => existsSync(path.join(root, entry, 'bin', 'initdb')))
    : [];
  const version = versions.sort((a, b) => Number(a) - Number(b)).at(-1);
  if (version === undefined)
    throw new Error(
      'no PostgreSQL server found under /usr/lib/postgresql (apt-get install postgresql, or set SANDPIPER_TEST_PG_URL)',
    );
  const bin = path.join(root, version, 'bin');
  const dir = mkdtempSync('/var/tmp/sp-bench-pg-');
  const asPostgres = (args: string[]): void => {
    const result = spawnSync('runuser', ['-u', 'postgres', '--', ...args], { encoding: 'utf8' });
    if (result.status !== 0)
      throw new Error(
        `${path.basename(args[0] ?? '')} failed: ${result.stderr || result.stdout || String(result.error)}`,
      );
  };
  const listen = port ?? (await freePort());
  chownSync(
    dir,
    Number(spawnSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).stdout.trim()),
    Number(spawnSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).stdout.trim()),
  );
  asPostgres([path.join(bin, 'initdb'), '-D', dir, '-A', 'trust', '-U', 'postgres', '--no-sync', '-E', 'UTF8']);
  const options = `-c listen_addresses=127.0.0.1 -p ${listen} -k ${dir} -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=300`;
  asPostgres([path.join(bin, 'pg_ctl'), '-D', dir, '-l', path.join(dir, 'server.log'), '-w', 'start', '-o', options]);
  const stop = (): void => {
    spawnSync('runuser', ['-u', 'postgres', '--', path.join(bin, 'pg_ctl'), '-D', dir, '-m', 'fast', 'stop'], {
      encoding: 'utf8',
    });
    rmSync(dir, { recursive: true, force: true });
  };
  return { url: `postgres://postgres@127.0.0.1:${listen}/postgres`, stop };
}
