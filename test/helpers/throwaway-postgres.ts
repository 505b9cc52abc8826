/** A fresh PostgreSQL database per test on a given server (by default SANDPIPER_TEST_PG_URL's), dropped afterwards. */
import { newHexId } from '../../src/shared/ids.js';
import { createKnex } from '../../src/storage/index.js';
import { testPostgresUrl } from './test-stores.js';

export interface ThrowawayDatabase {
  name: string;
  url: string;
  /** Drops it; WITH (FORCE), as a killed instance's connections may linger for a moment. */
  drop(): Promise<void>;
}

/** Creates `<prefix>_<hex>` on the server `serverUrl` points at. */
export async function createDatabaseOn(serverUrl: string, prefix: string): Promise<ThrowawayDatabase> {
  const name = `${prefix}_${newHexId(4)}`;
  const admin = createKnex(serverUrl);
  try {
    await admin.raw(`CREATE DATABASE ${name}`);
  } finally {
    await admin.destroy();
  }
  const parsed = new URL(serverUrl);
  parsed.pathname = `/${name}`;
  return {
    name,
    url: parsed.toString(),
    async drop() {
      const dropper = createKnex(serverUrl);
      try {
        await dropper.raw(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      } finally {
        await dropper.destroy();
      }
    },
  };
}

/** Creates `<prefix>_<hex>` on SANDPIPER_TEST_PG_URL's server; undefined when no PostgreSQL is configured (skip). */
export async function createThrowawayDatabase(prefix: string): Promise<ThrowawayDatabase | undefined> {
  const serverUrl = testPostgresUrl();
  return serverUrl === undefined ? undefined : createDatabaseOn(serverUrl, prefix);
}
