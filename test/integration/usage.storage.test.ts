/** The usage store contract on SQLite, and on PostgreSQL when SANDPIPER_TEST_PG_URL is set. */
import { describe, it } from 'node:test';
import { usageStoreContract } from '../contracts/usage-store.contract.js';
import { createTestStores, testPostgresUrl } from '../helpers/test-stores.js';

usageStoreContract('knex sqlite', () => createTestStores());

const pgUrl = testPostgresUrl();
if (pgUrl === undefined) {
  describe('PostgreSQL usage store contract', () => {
    it('skipped', { skip: 'SANDPIPER_TEST_PG_URL not set' }, () => {});
  });
} else {
  usageStoreContract('knex postgres', () => createTestStores({ url: pgUrl }));
}
