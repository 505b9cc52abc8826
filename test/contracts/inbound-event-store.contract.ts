/** Contract suite for InboundEventStore: atomic first claim, cursors per conversation, pruning. */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { messageSortKey } from '../../src/storage/index.js';
import { useStores, type StoresFactory } from './stores-factory.js';

export function inboundEventStoreContract(label: string, factory: StoresFactory): void {
  describe(`InboundEventStore contract (${label})`, () => {
    const stores = useStores(factory);

    it('grants the first claim of an event only, also when claims race', async () => {
      const claim = { platform: 'discord', eventKey: 'msg:1:10', channelId: '1', messageId: '10', receivedAt: 1 };
      const results = await Promise.all(Array.from({ length: 8 }, () => stores().inboundEvents.claim(claim)));
      assert.equal(results.filter(Boolean).length, 1);
      assert.equal(await stores().inboundEvents.claim({ ...claim, receivedAt: 2 }), false);
      assert.equal(await stores().inboundEvents.claim({ ...claim, platform: 'slack' }), true, 'keys are per platform');
      assert.equal(await stores().inboundEvents.claim({ platform: 'discord', eventKey: 'ix:77', receivedAt: 1 }), true);
    });

    it('records a claim written behind like any other: once, and a later claim of the event is refused', async () => {
      const inbound = stores().inboundEvents;
      const claim = {
        platform: 'discord',
        eventKey: 'msg:behind:20',
        channelId: 'behind',
        messageId: '20',
        receivedAt: 5,
      };
      const results = await Promise.all([inbound.claimBehind(claim), inbound.claimBehind({ ...claim, receivedAt: 6 })]);
      assert.deepEqual(results.sort(), [false, true], 'the same event twice in one batch is recorded once');
      assert.equal(await inbound.claim(claim), false);
      assert.equal(await inbound.claimBehind(claim), false);
      assert.deepEqual(await inbound.cursor('discord', 'behind', 10), { messageId: '20', receivedAt: 5 });
    });

    it("keeps a message claimed before it was stored pending, out of the cursor, and lets a dead claimer's claim be taken once", async () => {
      const inbound = stores().inboundEvents;
      const claim = (id: string, receivedAt: number) => ({
        platform: 'discord',
        eventKey: `msg:p:${id}`,
        channelId: 'p',
        messageId: id,
        receivedAt,
      });
      assert.equal(await inbound.claimBehind(claim('100', 10)), true);
      assert.equal(await inbound.claim({ ...claim('101', 20), claimedBy: 'gone' }), true);
      assert.equal(
        (await inbound.cursor('discord', 'p', 1_000))?.messageId,
        '100',
        'a pending claim is not where catch-up starts',
      );
      const mine = { ...claim('101', 30), claimedBy: 'me' };
      assert.equal(await inbound.reclaim({ ...mine, claimedBy: 'gone' }, {}), false, "never its own claimer's");
      await stores().services.register({ serviceType: 'gateway', serviceId: 'beating', url: 'http://beating' });
      assert.equal(await inbound.claim({ ...claim('102', 20), claimedBy: 'beating' }), true);
      const recently = new Date(Date.now() - 60_000).toISOString();
      assert.equal(
        await inbound.reclaim({ ...claim('102', 30), claimedBy: 'me' }, { aliveSince: recently }),
        false,
        'its claimer beats',
      );
      assert.equal(await inbound.reclaim(mine, { aliveSince: recently }), true, 'its claimer has no heartbeat');
      assert.equal(await inbound.claimBehind(claim('101', 40)), true, 'settled by the message write');
      assert.equal(await inbound.claimBehind(claim('101', 40)), false);
      assert.equal(await inbound.reclaim({ ...mine, claimedBy: 'third' }, {}), false, 'settled: never taken again');
      assert.equal((await inbound.cursor('discord', 'p', 1_000))?.messageId, '101');
    });

    it('names the earliest earlier message of a thread still pending with another live claimer (Slack ts order)', async () => {
      const inbound = stores().inboundEvents;
      const claim = (ts: string, claimedBy?: string) => ({
        platform: 'slack',
        eventKey: `msg:C1:T1:${ts}`,
        channelId: 'C1:T1',
        messageId: ts,
        receivedAt: 1,
        ...(claimedBy === undefined ? {} : { claimedBy }),
      });
      const mine = claim('1700000000.000900', 'me') as ReturnType<typeof claim> & { claimedBy: string };
      assert.equal(await inbound.earlierPending(mine, {}), undefined, 'nothing earlier');
      assert.equal(await inbound.claim(claim('1700000000.000100', 'other')), true);
      assert.equal(await inbound.claim(claim('1700000000.000050', 'me')), true);
      assert.equal(await inbound.claim(claim('1700000001.000000', 'other')), true);
      assert.equal(await inbound.claim({ ...claim('1700000000.000010', 'other'), channelId: 'C1:T2' }), true);
      assert.equal(
        await inbound.earlierPending(mine, {}),
        '1700000000.000100',
        "another's earlier, not mine nor later",
      );
      assert.equal(
        await inbound.earlierPending({ ...mine, messageId: '1700000000.000060' }, {}),
        undefined,
        'only messages before it (ts order, not arrival)',
      );
      const recently = new Date(Date.now() - 60_000).toISOString();
      assert.equal(await inbound.earlierPending(mine, { aliveSince: recently }), undefined, 'its claimer is dead');
      await stores().services.register({ serviceType: 'gateway', serviceId: 'other', url: 'http://other' });
      assert.equal(await inbound.earlierPending(mine, { aliveSince: recently }), '1700000000.000100', 'alive');
      assert.equal(await inbound.claimBehind(claim('1700000000.000100')), true, 'settled by the message write');
      assert.equal(await inbound.earlierPending(mine, {}), undefined, 'settled: nothing to wait for');
    });

    it('answers each claim of a burst (made at once, on several platforms) by whether its event was new', async () => {
      const inbound = stores().inboundEvents;
      const claim = (platform: string, k: number) => ({
        platform,
        eventKey: `msg:burst:${k}`,
        channelId: 'burst',
        messageId: String(1000 + k),
        receivedAt: 1,
      });
      assert.equal(await inbound.claim(claim('discord', 3)), true);
      const burst = [
        ...Array.from({ length: 600 }, (_, k) => claim('discord', k)),
        claim('slack', 3),
        claim('discord', 5),
      ];
      const results = await Promise.all(burst.map((each) => inbound.claim(each)));
      assert.equal(results.filter(Boolean).length, 600, 'every new event once: 599 on discord, 1 on slack');
      assert.equal(results[3], false, 'recorded before the burst');
      assert.equal(results[600], true, 'the same key on another platform is another event');
      assert.equal(results[601], false, 'the second claim of an event in the same burst');
    });

    it('reads the newest message of a conversation recorded before a time as its cursor', async () => {
      const inbound = stores().inboundEvents;
      // Snowflakes of different lengths: numeric order, not text order.
      await inbound.claim({
        platform: 'discord',
        eventKey: 'msg:c:999',
        channelId: 'c',
        messageId: '999',
        receivedAt: 100,
      });
      await inbound.claim({
        platform: 'discord',
        eventKey: 'msg:c:1000',
        channelId: 'c',
        messageId: '1000',
        receivedAt: 200,
      });
      await inbound.claim({
        platform: 'discord',
        eventKey: 'msg:c:1001',
        channelId: 'c',
        messageId: '1001',
        receivedAt: 300,
      });
      assert.deepEqual(await inbound.cursor('discord', 'c', 250), { messageId: '1000', receivedAt: 200 });
      assert.equal((await inbound.cursor('discord', 'c', 1_000))?.messageId, '1001');
      assert.equal(await inbound.cursor('discord', 'c', 50), undefined);
      assert.equal(await inbound.cursor('slack', 'c', 1_000), undefined);
      assert.deepEqual(
        await inbound.recentConversations('discord', 150),
        ['c'],
        'only conversations with messages since the time',
      );
    });

    it('names the highest message key of a platform as its floor, numerically, interactions aside', async () => {
      const inbound = stores().inboundEvents;
      assert.equal(await inbound.messageFloor('floor-test'), '', 'no messages: no floor');
      await inbound.claim({ platform: 'floor-test', eventKey: 'ix:99999999', receivedAt: 1 });
      assert.equal(await inbound.messageFloor('floor-test'), '', 'interactions carry no message key');
      await inbound.claim({
        platform: 'floor-test',
        eventKey: 'msg:a:1000',
        channelId: 'a',
        messageId: '1000',
        receivedAt: 1,
      });
      await inbound.claim({
        platform: 'floor-test',
        eventKey: 'msg:b:999',
        channelId: 'b',
        messageId: '999',
        receivedAt: 2,
      });
      assert.equal(await inbound.messageFloor('floor-test'), messageSortKey('1000'));
      assert.equal(await inbound.messageFloor('floor-other'), '', 'floors are per platform');
    });

    it('prunes rows recorded before a time and then grants their keys again', async () => {
      const inbound = stores().inboundEvents;
      await inbound.claim({
        platform: 'slack',
        eventKey: 'msg:C1:1.000001',
        channelId: 'C1',
        messageId: '1.000001',
        receivedAt: 10,
      });
      await inbound.claim({
        platform: 'slack',
        eventKey: 'msg:C1:1.000002',
        channelId: 'C1',
        messageId: '1.000002',
        receivedAt: 5_000_000,
      });
      assert.ok((await inbound.prune(20)) >= 1);
      assert.equal(await inbound.claim({ platform: 'slack', eventKey: 'msg:C1:1.000001', receivedAt: 30 }), true);
      assert.equal(await inbound.claim({ platform: 'slack', eventKey: 'msg:C1:1.000002', receivedAt: 30 }), false);
    });
  });
}

describe('messageSortKey', () => {
  it('orders snowflakes and Slack timestamps numerically', () => {
    assert.ok(messageSortKey('999') < messageSortKey('1000'));
    assert.ok(messageSortKey('1700000000.000009') < messageSortKey('1700000000.000010'));
    assert.ok(messageSortKey('999999999.999999') < messageSortKey('1700000000.000001'));
    assert.equal(messageSortKey('abc'), 'abc');
  });
});
