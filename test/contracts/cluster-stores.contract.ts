/** Contract suite for the scale-out stores: workstream leases (claim, takeover, bulk renew) and handoffs (one claimer). */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { isClaimLost } from '../../src/shared/errors.js';
import { useStores, type StoresFactory } from './stores-factory.js';

export function clusterStoresContract(label: string, factory: StoresFactory): void {
  describe(`WorkstreamLeaseStore and HandoffStore contract (${label})`, () => {
    const stores = useStores(factory);

    it('grants a lease to one instance until it expires, then to the taker-over', async () => {
      const leases = stores().workstreamLeases;
      assert.equal((await leases.claim('w1', 'a', 100, 1100)).lease.holder, 'a');
      const refused = await leases.claim('w1', 'b', 500, 1500);
      assert.equal(refused.lease.holder, 'a', 'a live lease stays with its holder');
      const taken = await leases.claim('w1', 'b', 2000, 3000);
      assert.equal(taken.lease.holder, 'b');
      assert.equal(taken.takenFrom, 'a');
      const racing = await Promise.all(['c', 'd', 'e'].map((holder) => leases.claim('w2', holder, 100, 1100)));
      assert.equal(new Set(racing.map((r) => r.lease.holder)).size, 1, 'racing claimers agree on one holder');
    });

    it('renews every lease of a holder at once, lists expired ones and releases on stop', async () => {
      const leases = stores().workstreamLeases;
      await leases.claim('r1', 'h', 0, 10);
      await leases.claim('r2', 'h', 0, 10);
      assert.deepEqual((await leases.renewAll('h', 5000)).sort(), ['r1', 'r2']);
      assert.equal((await leases.get('r1'))?.expiresAt, 5000);
      assert.ok((await leases.listExpired(6000, 100)).some((lease) => lease.wsId === 'r2'));
      assert.equal(await leases.releaseAll('h'), 2);
      assert.equal(await leases.get('r1'), undefined);
    });

    it('releases chosen leases, and only the expired leases of a dead holder', async () => {
      const leases = stores().workstreamLeases;
      await leases.claim('x1', 'dead', 0, 10);
      await leases.claim('x2', 'dead', 0, 5000);
      await leases.claim('x3', 'other', 0, 10);
      assert.equal(await leases.releaseExpired('dead', 100), 1, 'only the expired lease of that holder');
      assert.equal(await leases.get('x1'), undefined);
      assert.equal((await leases.get('x2'))?.holder, 'dead');
      assert.equal((await leases.get('x3'))?.holder, 'other');
      assert.equal(await leases.release('dead', ['x2', 'x3']), 1, 'a lease of another holder is not released');
      assert.equal(await leases.release('dead', []), 0);
    });

    it('expires leases of one holder at once, keeping the holder, so the takeover scan lists them', async () => {
      const leases = stores().workstreamLeases;
      await leases.claim('h1', 'stopping', 0, 1_000_000);
      await leases.claim('h2', 'stopping', 0, 1_000_000);
      await leases.claim('h3', 'other', 0, 1_000_000);
      const mine = async (): Promise<string[][]> =>
        (await leases.listExpired(500, 100))
          .filter((lease) => lease.wsId.startsWith('h'))
          .map((lease) => [lease.wsId, lease.holder]);
      assert.deepEqual(await mine(), []);
      assert.equal(await leases.expireNow('stopping', ['h1', 'h3']), 1, 'only the leases of that holder');
      assert.equal(await leases.expireNow('stopping', []), 0);
      assert.deepEqual(await mine(), [['h1', 'stopping']]);
      assert.equal(
        (await leases.claim('h1', 'taker', 500, 2000)).takenFrom,
        'stopping',
        'another instance takes it over',
      );
      assert.equal((await leases.get('h2'))?.expiresAt, 1_000_000);
    });

    it('lets exactly one instance claim a handoff and lists what is unclaimed', async () => {
      const handoffs = stores().handoffs;
      const row = await handoffs.create({ target: 'a', wsId: 'w', kind: 'inbound', payload: '{"x":1}', createdAt: 1 });
      assert.deepEqual(
        (await handoffs.listUnclaimed('a', 10)).map((h) => h.id),
        [row.id],
      );
      assert.deepEqual(
        (await handoffs.listUnclaimedFor('w')).map((h) => h.id),
        [row.id],
      );
      const claims = await Promise.all(['a', 'b', 'c'].map((by) => handoffs.claim(row.id, by, 2)));
      assert.equal(claims.filter(Boolean).length, 1);
      assert.equal((await handoffs.listUnclaimed('a', 10)).length, 0);
      assert.equal((await handoffs.get(row.id))?.payload, '{"x":1}');
      assert.equal(await handoffs.prune(3), 1);
    });

    it('wakes a listener for each new handoff on PostgreSQL, and stops on close', async () => {
      const handoffs = stores().handoffs;
      const woken: string[] = [];
      let arrived: (() => void) | undefined;
      const close = await handoffs.listen(
        (target, id) => (woken.push(`${target} ${id}`), arrived?.()),
        (error) => assert.fail(`listen failed: ${String(error)}`),
      );
      if (!label.includes('postgres')) {
        await close();
        return; // SQLite has one instance and nothing to wake: listen is a no-op there.
      }
      const wake = new Promise<void>((resolve) => (arrived = resolve));
      const row = await handoffs.create({
        target: 'listener',
        wsId: 'w-l',
        kind: 'inbound',
        payload: '',
        createdAt: 1,
      });
      await wake;
      assert.deepEqual(woken, [`listener ${row.id}`]);
      await close();
      await handoffs.create({ target: 'listener', wsId: 'w-l', kind: 'inbound', payload: '', createdAt: 2 });
      assert.deepEqual(woken, [`listener ${row.id}`], 'nothing after close');
    });

    it('hands a message over only while its claim is this instance’s', async () => {
      const { handoffs, inboundEvents } = stores();
      const claim = (claimedBy: string) => ({
        platform: 'slack',
        eventKey: 'msg:C9:1700000000.000100',
        channelId: 'C9',
        messageId: '1700000000.000100',
        receivedAt: 1,
        claimedBy,
      });
      assert.equal(await inboundEvents.claim(claim('a')), true);
      assert.equal(await inboundEvents.reclaim(claim('b'), {}), true, 'b takes the claim of a');
      const hand = (by: string) =>
        handoffs.create({
          target: 'h',
          wsId: 'w-fence',
          kind: 'inbound',
          payload: by,
          createdAt: 1,
          receipt: claim(by),
        });
      await assert.rejects(hand('a'), (error: unknown) => isClaimLost(error));
      assert.deepEqual(await handoffs.listUnclaimedFor('w-fence'), [], 'nothing handed by the instance that lost it');
      await hand('b');
      assert.deepEqual(
        (await handoffs.listUnclaimedFor('w-fence')).map((handoff) => handoff.payload),
        ['b'],
      );
    });
  });
}
