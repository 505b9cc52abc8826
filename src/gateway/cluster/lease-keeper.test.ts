import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createTestStores, type TestStores } from '../../../test/helpers/test-stores.js';
import { LeaseKeeper } from './lease-keeper.js';

describe('LeaseKeeper', () => {
  let db: TestStores;
  let clock = 1_000_000;
  const now = (): number => clock;

  before(async () => {
    db = await createTestStores();
  });
  after(() => db.close());

  const keeper = (instanceId: string): LeaseKeeper =>
    new LeaseKeeper({ store: db.stores.workstreamLeases, instanceId, ttlMs: 3000, now });

  it('gives a workstream to one instance while it renews, and to another once it stops renewing', async () => {
    const a = keeper('a');
    const b = keeper('b');
    assert.deepEqual(await a.claim('w1'), { own: true });
    assert.deepEqual(await b.claim('w1'), { own: false, holder: 'a' });
    clock += 2000;
    assert.deepEqual(await a.renew(), [], 'a still holds it');
    clock += 2000;
    assert.deepEqual(await b.claim('w1'), { own: false, holder: 'a' }, 'renewed: not expired yet');
    clock += 4000;
    assert.deepEqual(await b.claim('w1'), { own: true, takenFrom: 'a' });
    // a comes back (a long pause): its renewal tells it the workstream is gone, so it stops running it.
    assert.deepEqual(await a.renew(), ['w1']);
    assert.equal(a.holds('w1'), false);
    assert.deepEqual(await a.claim('w1'), { own: false, holder: 'b' });
  });

  it('does not trust its own cache once the lease may have expired', async () => {
    const a = keeper('a2');
    const b = keeper('b2');
    await a.claim('w2');
    clock += 5000;
    assert.deepEqual(await b.claim('w2'), { own: true, takenFrom: 'a2' });
    // Without a renewal in between, a's cached entry is past its expiry: it asks the table and learns the truth.
    assert.deepEqual(await a.claim('w2'), { own: false, holder: 'b2' });
  });

  it('shares one claim between concurrent callers and releases only its own idle leases', async () => {
    const a = keeper('a3');
    const claims = await Promise.all([a.claim('w3'), a.claim('w3'), a.claim('w3')]);
    assert.deepEqual(claims, [{ own: true }, { own: true }, { own: true }]);
    await keeper('b3').claim('w4');
    assert.equal(await a.release(['w3', 'w4']), 1, "w4 is not a3's");
    assert.equal(await db.stores.workstreamLeases.get('w3'), undefined);
    assert.equal((await db.stores.workstreamLeases.get('w4'))?.holder, 'b3');
  });
});
