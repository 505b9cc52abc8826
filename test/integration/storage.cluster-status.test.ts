/** Runs the ClusterStatusStore contract on SQLite, and on PostgreSQL when SANDPIPER_TEST_PG_URL is set. */
import { describe, it } from 'node:test';
import { clusterStatusStoreContract } from '../contracts/cluster-status-store.contract.js';
import { createTestStores, testPostgresUrl } from '../helpers/test-stores.js';

clusterStatusStoreContract('knex sqlite', () => createTestStores());

const pgUrl = testPostgresUrl();
if (pgUrl === undefined) {
  describe('ClusterStatusStore contract (knex postgres)', () => {
    it('skipped', { skip: 'SANDPIPER_TEST_PG_URL not set' }, () => {});
  });
  console.log('PostgreSQL cluster-status tests skipped: SANDPIPER_TEST_PG_URL not set');
} else {
  clusterStatusStoreContract('knex postgres', () => createTestStores({ url: pgUrl }));
}
