/** Runs every store contract on SQLite, and on PostgreSQL when SANDPIPER_TEST_PG_URL is set. */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
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

describe('ServiceStore healthy window (knex sqlite)', () => {
  it('leaves out services whose last heartbeat is older than the window', async () => {
    const { stores, knex, close } = await createTestStores();
    try {
      await stores.services.register({ serviceType: 'channel', serviceId: 'fresh', url: 'http://a' });
      await stores.services.register({ serviceType: 'channel', serviceId: 'stale', url: 'http://b' });
      await knex('services').where({ service_id: 'stale' }).update({ last_heartbeat: '2020-01-01T00:00:00' });
      const ids = (await stores.services.listHealthy('channel', 120)).map((row) => row.serviceId);
      assert.deepEqual(ids, ['fresh']);
      assert.equal(await stores.services.heartbeat('channel', 'stale'), true);
      assert.equal((await stores.services.listHealthy('channel', 120)).length, 2);
    } finally {
      await close();
    }
  });
});
