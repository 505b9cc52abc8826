/** Contract suite for ShardLeaseStore: one holder per shard (also when claims race), renewal, expiry takeover, release. */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { useStores, type StoresFactory } from './stores-factory.js';

const TTL = 15_000;

export function shardLeaseStoreContract(label: string, factory: StoresFactory): void {
  describe(`ShardLeaseStore contract (${label})`, () => {
    const stores = useStores(factory);
    const lease = (bot: string, shardId: number, holder: string) => ({ bot, shardId, shardCount: 2, holder });

    it('grants a free shard to exactly one of several racing instances', async () => {
      const results = await Promise.all(
        ['a', 'b', 'c', 'd'].map((holder) => stores().shardLeases.claim(lease('bot-race', 0, holder), 1000, TTL)),
      );
      assert.equal(results.filter((r) => r !== undefined).length, 1);
      const rows = await stores().shardLeases.list('bot-race');
      assert.equal(rows.length, 1);
      assert.equal(rows[0]?.expiresAt, 1000 + TTL);
      assert.equal(rows[0]?.shardCount, 2);
    });

    it('refuses a running lease of another holder and takes it over once expired, naming the previous holder', async () => {
      assert.deepEqual(await stores().shardLeases.claim(lease('bot-exp', 1, 'a'), 1000, TTL), { previous: undefined });
      assert.equal(
        await stores().shardLeases.claim(lease('bot-exp', 1, 'b'), 1000 + TTL, TTL),
        undefined,
        'not expired at its expiry',
      );
      const racing = await Promise.all(
        ['b', 'c'].map((holder) => stores().shardLeases.claim(lease('bot-exp', 1, holder), 1001 + TTL, TTL)),
      );
      const won = racing.filter((r) => r !== undefined);
      assert.equal(won.length, 1, 'one taker wins the expired lease');
      assert.equal(won[0]?.previous?.holder, 'a');
      assert.equal(won[0]?.previous?.expiresAt, 1000 + TTL);
      const [row] = await stores().shardLeases.list('bot-exp');
      assert.ok(row?.holder === 'b' || row?.holder === 'c');
      assert.equal(row?.acquiredAt, 1001 + TTL);
    });

    it('renews all of a holder’s leases with one call and reports what it still holds', async () => {
      await stores().shardLeases.claim(lease('bot-renew', 0, 'a'), 1000, TTL);
      await stores().shardLeases.claim(lease('bot-renew', 1, 'a'), 1000, TTL);
      await stores().shardLeases.claim(lease('bot-renew', 2, 'b'), 1000, TTL);
      assert.deepEqual(await stores().shardLeases.renew('bot-renew', 'a', 5000, TTL), [0, 1]);
      const rows = await stores().shardLeases.list('bot-renew');
      assert.deepEqual(
        rows.map((r) => [r.shardId, r.holder, r.expiresAt]),
        [
          [0, 'a', 5000 + TTL],
          [1, 'a', 5000 + TTL],
          [2, 'b', 1000 + TTL],
        ],
      );
      assert.equal(
        await stores().shardLeases.claim(lease('bot-renew', 0, 'b'), 2000 + TTL, TTL),
        undefined,
        'the renewed lease holds',
      );
      assert.deepEqual(await stores().shardLeases.renew('bot-renew', 'nobody', 5000, TTL), []);
      assert.deepEqual(await stores().shardLeases.renew('other-bot', 'a', 5000, TTL), [], 'leases are per bot');
    });

    it('releases some or all shards so another instance can take them at once', async () => {
      await stores().shardLeases.claim(lease('bot-rel', 0, 'a'), 1000, TTL);
      await stores().shardLeases.claim(lease('bot-rel', 1, 'a'), 1000, TTL);
      assert.equal(await stores().shardLeases.release('bot-rel', 'a', 2000, [1]), 1);
      const taken = await stores().shardLeases.claim(lease('bot-rel', 1, 'b'), 2000, TTL);
      assert.equal(taken?.previous?.holder, '', 'a released lease has no holder');
      assert.equal(taken?.previous?.expiresAt, 2000, 'and expired when it was released');
      assert.equal(await stores().shardLeases.release('bot-rel', 'a', 2500), 1);
      assert.deepEqual(await stores().shardLeases.renew('bot-rel', 'a', 3000, TTL), []);
      assert.equal(await stores().shardLeases.release('bot-rel', '', 3000), 0, 'the empty holder releases nothing');
      assert.ok(await stores().shardLeases.claim(lease('bot-rel', 0, 'b'), 2600, TTL));
    });

    it('lets a holder re-claim its own running lease (a restart with the same id)', async () => {
      await stores().shardLeases.claim(lease('bot-own', 0, 'a'), 1000, TTL);
      const again = await stores().shardLeases.claim(lease('bot-own', 0, 'a'), 2000, TTL);
      assert.equal(again?.previous?.holder, 'a');
    });
  });
}
