/** A fresh PostgreSQL database per test on the server of SANDPIPER_TEST_PG_URL, dropped afterwards. */
import { newHexId } from '../../src/shared/ids.js';
import { createKnex } from '../../src/storage/index.js';
import { testPostgresUrl } from './test-stores.js';

export interface ThrowawayDatabase {
  url: string;
  drop(): Promise<void>;
}

/** Creates `<prefix>_<hex>`; undefined when no PostgreSQL is configured (the caller skips). */
export async function createThrowawayDatabase(prefix: string): Promise<ThrowawayDatabase | undefined> {
  const serverUrl = testPostgresUrl();
  if (serverUrl === undefined) return undefined;
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
