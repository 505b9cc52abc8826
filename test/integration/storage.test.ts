/** Runs every store contract on SQLite, and on PostgreSQL when SANDPIPER_TEST_PG_URL is set. */
import { describe, it } from 'node:test';
import { allStoreContracts } from '../contracts/all-store-contracts.js';
import { createTestStores, testPostgresUrl } from '../helpers/test-stores.js';

allStoreContracts('knex sqlite', () => createTestStores());

const pgUrl = testPostgresUrl();
if (pgUrl === undefined) {
  describe('PostgreSQL store contracts', () => {
    it('skipped', { skip: 'SANDPIPER_TEST_PG_URL not set' }, () => {});
  });
  console.log('PostgreSQL contract tests skipped: SANDPIPER_TEST_PG_URL not set');
} else {
  allStoreContracts('knex postgres', () => createTestStores({ url: pgUrl }));
}
