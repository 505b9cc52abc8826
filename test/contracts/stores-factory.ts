/** The factory contract suites run against: any implementation of the Stores bundle (knex on SQLite/PostgreSQL, fakes). */
import { after, before } from 'node:test';
import type { Stores } from '../../src/storage/index.js';

export interface StoresHandle {
  stores: Stores;
  close(): Promise<void>;
}

export type StoresFactory = () => Promise<StoresHandle>;

/** Opens fresh stores before the enclosing describe's tests and closes them after; returns an accessor. */
export function useStores(factory: StoresFactory): () => Stores {
  let handle: StoresHandle | undefined;
  before(async () => {
    handle = await factory();
  });
  after(async () => {
    await handle?.close();
  });
  return () => {
    if (handle === undefined) throw new Error('stores not opened yet');
    return handle.stores;
  };
}
