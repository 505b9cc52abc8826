/** Tests for the remembered memory counts: a memory saved here counts at once; one saved elsewhere within the TTL; new workstreams cost no query. */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createTestStores, type TestStores } from '../../test/helpers/test-stores.js';
import { waitFor } from '../../test/helpers/tool-context.js';
import { CachedMemoryCounts, MEMORY_COUNT_TTL_MS } from './cached-memory-counts.js';
import { KnexMemoryStore } from './knex-memory-store.js';

const memory = (name: string, scopeId: string) => ({
  name,
  description: 'd',
  type: 'user' as const,
  scope: 'user' as const,
  scopeId,
  content: `about ${name}`,
});

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
    assert.equal(await counted.countVisible(visibility), 0, 'remembered within the TTL');
    now += MEMORY_COUNT_TTL_MS;
    // The aged count is still answered (the refresh runs in the background, off the waiting path); then it shows.
    await waitFor(async () => (await counted.countVisible(visibility)) === 1);
  });

  it('answers a new workstream and an owner seen for the first time without a query, and counts workstream memories', async () => {
    const stores = db.stores;
    const user = await stores.users.createUser('counts-owner');
    const first = { wsId: 'ws-first', userId: user.userId };
    assert.equal(await stores.memories.countVisible(first), 0);
    const statements: string[] = [];
    const onQuery = (query: { sql: string }): void => void statements.push(query.sql);
    db.knex.on('query', onQuery);
    const ws = await stores.workstreams.create({
      wsId: 'ws-new-counts',
      userId: user.userId,
      name: 'n',
      modelAlias: 'default',
    });
    const inserts = statements.length;
    assert.equal(await stores.memories.countVisible({ wsId: ws.wsId, userId: 'never-seen-user' }), 0);
    assert.equal(statements.length, inserts, `no count query: ${statements.slice(inserts).join('; ')}`);
    db.knex.off('query', onQuery);
    assert.ok(await stores.memories.create({ ...memory('own', ws.wsId), scope: 'workstream' }));
    assert.ok(await stores.memories.create(memory('mine', user.userId)));
    assert.equal(await stores.memories.countVisible({ wsId: ws.wsId, userId: user.userId }), 2);
    assert.equal(await stores.memories.countVisible({ wsId: ws.wsId, userId: '' }), 1);
    assert.equal(await stores.memories.delete('own', 'workstream', ws.wsId), true);
    assert.equal(await stores.memories.countVisible({ wsId: ws.wsId, userId: user.userId }), 1);
  });
});
