/** InboundLedger on a real SQLite store: new messages admitted from memory, replays and old messages by the database. */
import { afterEach, beforeEach, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { InboundEvent } from '../channels/channel-adapter.js';
import { createSilentLogger } from '../shared/logger.js';
import { createTestStores, type TestStores } from '../../test/helpers/test-stores.js';
import { InboundLedger } from './inbound-ledger.js';
import { RecentClaims } from './recent-claims.js';

const message = (
  channelId: string,
  messageId: string,
  kind: 'thread' | 'channel' | 'direct' = 'thread',
): InboundEvent => ({
  type: 'message',
  user: { id: 'u1', name: 'ada' },
  conversation: { kind, channelId },
  messageId,
  text: 'hello',
  mentioned: false,
});

describe('InboundLedger', () => {
  let db: TestStores;
  beforeEach(async () => {
    db = await createTestStores();
  });
  afterEach(async () => {
    await db.close();
  });

  const ledger = (singleInstance: boolean): InboundLedger =>
    new InboundLedger(
      db.stores.inboundEvents,
      Date.now,
      createSilentLogger(),
      singleInstance ? new RecentClaims() : undefined,
    );
  const pendingRows = async (): Promise<number> =>
    Number((await db.knex('inbound_events').where({ pending: 1 }).count({ n: '*' }).first())?.n);
  const stored = async (): Promise<number> =>
    Number((await db.knex('inbound_events').where({ platform: 'discord' }).count({ n: '*' }).first())?.n);
  /** Resolves once every claim written behind before it has committed (the write batches commit in order). */
  let flushes = 0;
  const written = (): Promise<boolean> =>
    db.stores.inboundEvents.claimBehind({ platform: 'flush', eventKey: `ix:${(flushes += 1)}`, receivedAt: 1 });

  it('admits a message above the floor at once, drops its replay, and writes its row once its handling ended', async () => {
    const single = ledger(true);
    await single.loadFloors(['discord']);
    const event = message('t1', '1000');
    assert.equal(await single.admit('discord', event), true);
    assert.equal(await single.admit('discord', message('t1', '1000')), false, 'a replay in the same process');
    await written();
    assert.equal(await stored(), 0, 'no row while the message is handled: a kill now leaves it to catch-up');
    await single.settle(event);
    await written();
    assert.equal(await stored(), 1, 'the row is in the database');
  });

  it('hands the row of a message admitted from memory to the write that stores the message, once', async () => {
    const single = ledger(true);
    await single.loadFloors(['discord']);
    const event = message('t1', '1000');
    assert.equal(await single.admit('discord', event), true);
    const receipt = single.take(event);
    assert.equal(receipt?.eventKey, 'msg:t1:1000');
    assert.equal(single.take(event), undefined, 'taken once');
    await single.settle(event);
    await written();
    assert.equal(await stored(), 0, 'settling writes nothing the message write took');
    const kept = message('t1', '1001');
    await db.stores.turnJournal.apply([
      {
        kind: 'begin',
        turnId: 'turn-1',
        wsId: 'ws-1',
        resumed: false,
        receipt: receipt as NonNullable<typeof receipt>,
      },
    ]);
    assert.equal(await stored(), 1, "written with the turn's accepted write");
    const cluster = ledger(false);
    assert.equal(await cluster.admit('discord', kept), true);
    const pending = cluster.take(kept);
    assert.equal(pending?.eventKey, 'msg:t1:1001', 'a claim granted by the database is settled by the message write');
    assert.equal(await pendingRows(), 1);
    await db.stores.turnJournal.apply([
      {
        kind: 'begin',
        turnId: 'turn-2',
        wsId: 'ws-1',
        resumed: false,
        receipt: pending as NonNullable<typeof pending>,
      },
    ]);
    assert.equal(await pendingRows(), 0, 'settled with the accepted write');
  });

  it('hands a message claimed by a process that died before storing it to catch-up, never one of a live process', async () => {
    const options = (instanceId: string) => ({ instanceId, deadAfterMs: 2_000 });
    const store = db.stores.inboundEvents;
    const dead = new InboundLedger(store, Date.now, createSilentLogger(), undefined, options('dead-one'));
    const survivor = new InboundLedger(store, Date.now, createSilentLogger(), undefined, options('survivor'));
    assert.equal(
      await dead.admit('discord', message('t3', '70')),
      true,
      'claimed; the process dies before the message is stored',
    );
    assert.equal(await survivor.admit('discord', message('t3', '70')), false, 'a replay is still refused');
    assert.equal(
      await survivor.admit('discord', message('t3', '70'), { reclaim: true }),
      true,
      'catch-up takes it again',
    );
    await db.stores.services.register({ serviceType: 'gateway', serviceId: 'survivor', url: 'http://survivor' });
    const third = new InboundLedger(store, Date.now, createSilentLogger(), undefined, options('third'));
    assert.equal(
      await third.admit('discord', message('t3', '70'), { reclaim: true }),
      false,
      'once: the survivor beats',
    );

    await db.stores.services.register({ serviceType: 'gateway', serviceId: 'alive-one', url: 'http://alive' });
    const alive = new InboundLedger(store, Date.now, createSilentLogger(), undefined, options('alive-one'));
    const slow = message('t3', '71');
    assert.equal(await alive.admit('discord', slow), true);
    assert.equal(
      await survivor.admit('discord', message('t3', '71'), { reclaim: true }),
      false,
      'its claimer beats: still being handled',
    );
    assert.equal(
      await survivor.admit('discord', message('t3', '72'), { reclaim: true }),
      true,
      'a message nobody claimed',
    );
    await alive.settle(slow);
    await written();
    await db.stores.services.deregister('gateway', 'alive-one');
    assert.equal(
      await survivor.admit('discord', message('t3', '71'), { reclaim: true }),
      false,
      'settled (handled, nothing stored): never again',
    );
    assert.equal(
      (await store.cursor('discord', 't3', Date.now() + 1))?.messageId,
      '71',
      'catch-up starts after the newest settled message',
    );
  });

  it('after a restart, claims messages at or below the stored floor in the database', async () => {
    const before = ledger(true);
    await before.loadFloors(['discord']);
    const first = message('t1', '1000');
    const second = message('t2', '900');
    assert.equal(await before.admit('discord', first), true);
    assert.equal(await before.admit('discord', second), true);
    await Promise.all([before.settle(first), before.settle(second)]);
    await written();
    const after = ledger(true);
    await after.loadFloors(['discord']);
    assert.equal(
      await after.admit('discord', message('t2', '900')),
      false,
      'handled by the earlier run (below the floor)',
    );
    assert.equal(await after.admit('discord', message('t1', '1000')), false, 'the floor itself');
    assert.equal(
      await after.admit('discord', message('t2', '950')),
      true,
      'below the floor but never seen: the database grants it',
    );
    assert.equal(await after.admit('discord', message('t2', '950')), false);
    assert.equal(await after.admit('discord', message('t1', '1001')), true);
  });

  it("without a floor (not loaded, or a cluster) every claim is the database's", async () => {
    const first = ledger(false);
    const second = ledger(false);
    assert.equal(await first.admit('discord', message('t1', '5')), true);
    assert.equal(await second.admit('discord', message('t1', '5')), false, 'another instance claimed it');
    const unloaded = ledger(true);
    assert.equal(await unloaded.admit('discord', message('t1', '5')), false);
  });

  it('answers the claims of one channel in arrival order, whichever path each takes', async () => {
    await db.stores.inboundEvents.claim({
      platform: 'discord',
      eventKey: 'msg:t9:500',
      channelId: 't9',
      messageId: '500',
      receivedAt: 1,
    });
    const single = ledger(true);
    await single.loadFloors(['discord']);
    const order: string[] = [];
    await Promise.all(
      ['400', '600', '450', '700'].map((id) =>
        single.admit('discord', message('t9', id)).then((admitted) => order.push(`${id}:${admitted}`)),
      ),
    );
    assert.deepEqual(order, ['400:true', '600:true', '450:true', '700:true']);
  });

  it('keeps cluster order only for thread and DM messages of a platform that spreads events over instances', async () => {
    const asked: string[] = [];
    const order = {
      earlierSettled: (claim: { messageId?: string | undefined }): Promise<void> => {
        asked.push(claim.messageId ?? '');
        return Promise.resolve();
      },
    };
    const cluster = new InboundLedger(db.stores.inboundEvents, Date.now, createSilentLogger(), undefined, {
      instanceId: 'me',
      deadAfterMs: 2_000,
      order,
    });
    const topLevel = message('C1', '10', 'channel');
    const direct = message('D1', '11', 'direct');
    assert.equal(await cluster.admit('slack', topLevel, { ordered: true }), true);
    assert.equal(await cluster.admit('slack', message('C1:10', '12'), { ordered: true }), true);
    assert.equal(await cluster.admit('slack', direct, { ordered: true }), true);
    assert.equal(await cluster.admit('discord', message('t1', '13')), true);
    assert.deepEqual(asked, ['12', '11'], 'a new top-level mention and a Discord message wait for nobody');
  });
});

describe('RecentClaims', () => {
  const claim = (messageId: string, platform = 'discord') => ({
    platform,
    eventKey: `msg:c:${messageId}`,
    channelId: 'c',
    messageId,
    receivedAt: 1,
  });

  it('lets go of the oldest keys only by raising the floor above them', () => {
    const recent = new RecentClaims(2);
    recent.setFloor('discord', '');
    assert.equal(recent.check(claim('10')), 'new');
    assert.equal(recent.check(claim('11')), 'new');
    assert.equal(recent.check(claim('12')), 'new');
    assert.equal(recent.size, 2);
    assert.equal(recent.check(claim('10')), 'unknown', 'forgotten: only the database knows');
    assert.equal(recent.check(claim('11')), 'duplicate');
    assert.equal(recent.check(claim('10', 'slack')), 'unknown', 'a platform without a floor');
  });

  it('refuses a database grant for a message already admitted from memory', () => {
    const recent = new RecentClaims();
    recent.setFloor('discord', '');
    assert.equal(recent.check(claim('20')), 'new');
    assert.equal(recent.granted(claim('20')), false);
    assert.equal(recent.granted(claim('21')), true);
    assert.equal(recent.check(claim('21')), 'duplicate');
  });
});
