/** Tests for the remembered memory counts: a memory saved here counts at once; one saved elsewhere within the TTL. */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createTestStores, type TestStores } from '../../test/helpers/test-stores.js';
import { CachedMemoryCounts, MEMORY_COUNT_TTL_MS } from './cached-memory-counts.js';
import { KnexMemoryStore } from './knex-memory-store.js';

const memory = (name: string, scopeId: string) => ({ name, description: 'd', type: 'user' as const, scope: 'user' as const, scopeId, content: `about ${name}` });

describe('CachedMemoryCounts', () => {
  let db: TestStores;
  before(async () => {
    db = await createTestStores();
  });
  after(() => db.close());

  it('counts a memory saved, updated away or deleted through it at once', async () => {
    const counted = new CachedMemoryCounts(new KnexMemoryStore(db.knex));
    const visibility = { wsId: 'ws-a', userId: 'user-a' };
    assert.equal(await counted.countVisible(visibility), 0);
    assert.ok(await counted.create(memory('first', 'user-a')));
    assert.equal(await counted.countVisible(visibility), 1);
    assert.ok(await counted.create(memory('second', 'user-a')));
    assert.equal(await counted.countVisible(visibility), 2);
    assert.equal(await counted.delete('first', 'user', 'user-a'), true);
    assert.equal(await counted.countVisible(visibility), 1);
    assert.equal(await counted.countVisible({ wsId: 'ws-b', userId: 'user-b' }), 0);
  });

  it('sees a memory written by another process once the count has aged out', async () => {
    let now = 1_000_000;
    const counted = new CachedMemoryCounts(new KnexMemoryStore(db.knex), () => now);
    const elsewhere = new KnexMemoryStore(db.knex);
    const visibility = { wsId: 'ws-c', userId: 'user-c' };
    assert.equal(await counted.countVisible(visibility), 0);
    assert.ok(await elsewhere.create(memory('remote', 'user-c')));
    now += MEMORY_COUNT_TTL_MS;
    assert.equal(await counted.countVisible(visibility), 1);
  });
});
