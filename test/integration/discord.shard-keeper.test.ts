/**
 * The shard keeper on real stores (SQLite, and PostgreSQL when SANDPIPER_TEST_PG_URL is set): the fair share, takeover
 * of a dead instance's shards with the time to catch up from, whether a shard may identify (its lease outlasts a
 * heartbeat), a lost lease disconnecting at once, release on stop.
 * The keepers run on one controlled clock and are driven round by round; what they connect is recorded.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import {
  ShardKeeper,
  type DiscordClusterOptions,
  type ShardLinks,
} from '../../src/channels/discord/discord-shard-keeper.js';
import { createSilentLogger } from '../../src/shared/logger.js';
import { createTestStores, testPostgresUrl, type TestStores } from '../helpers/test-stores.js';
import { waitFor } from '../helpers/wait-for.js';

const HEARTBEAT = 1000;
const TTL = 3000;

/** What the adapter would connect: the shards with a live connection, and the takeovers it was told about. */
class Connections implements ShardLinks {
  readonly open = new Set<number>();
  readonly takeovers: Array<{ shard: number; lostAtMs: number }> = [];
  connect(shardId: number, lostAtMs: number | undefined): void {
    assert.ok(!this.open.has(shardId), `shard ${shardId} connected twice`);
    this.open.add(shardId);
    if (lostAtMs !== undefined) this.takeovers.push({ shard: shardId, lostAtMs });
  }
  disconnect(shardId: number): Promise<void> {
    this.open.delete(shardId);
    return Promise.resolve();
  }
}

const pgUrl = testPostgresUrl();
for (const engine of pgUrl ? ['sqlite', 'postgres'] : ['sqlite']) {
  describe(`discord shard keeper (${engine})`, () => {
    let db: TestStores;
    let clock = 1_000_000;
    const alive = new Set<string>();
    before(async () => {
      db = await createTestStores(engine === 'postgres' && pgUrl ? { url: pgUrl } : {});
    });
    after(async () => {
      await db.close();
    });

    const keeper = (bot: string, id: string, count: number): { keeper: ShardKeeper; links: Connections } => {
      const links = new Connections();
      const cluster: DiscordClusterOptions = {
        leases: db.stores.shardLeases,
        instanceId: id,
        heartbeatMs: HEARTBEAT,
        ttlMs: TTL,
        now: () => clock,
        peers: () => Promise.resolve([...alive]),
      };
      alive.add(id);
      return { keeper: new ShardKeeper(cluster, bot, count, links, createSilentLogger()), links };
    };
    const round = async (...keepers: ShardKeeper[]): Promise<void> => {
      for (const k of keepers) await k.tick();
    };
    const holders = async (bot: string): Promise<Record<number, string>> =>
      Object.fromEntries(
        (await db.stores.shardLeases.list(bot))
          .filter((row) => row.holder !== '' && row.expiresAt > clock)
          .map((row) => [row.shardId, row.holder]),
      );

    it('spreads 2 shards over 3 instances 1/1/0, each shard connected by exactly one', async () => {
      alive.clear();
      const a = keeper('bot-spread', 'a', 2);
      await a.keeper.tick();
      assert.deepEqual([...a.links.open], [0, 1], 'alone, the first instance runs every shard');
      const b = keeper('bot-spread', 'b', 2);
      const c = keeper('bot-spread', 'c', 2);
      for (let i = 0; i < 3; i += 1) {
        clock += HEARTBEAT;
        await round(a.keeper, b.keeper, c.keeper);
      }
      const counts = [a, b, c].map((k) => k.links.open.size).sort();
      assert.deepEqual(counts, [0, 1, 1]);
      const open = [a, b, c].flatMap((k) => [...k.links.open]).sort();
      assert.deepEqual(open, [0, 1], 'every shard runs once');
      assert.deepEqual(Object.keys(await holders('bot-spread')).length, 2);
      assert.equal(
        b.links.takeovers.length + c.links.takeovers.length,
        1,
        'the shard handed over names the time to catch up from',
      );
    });

    it('takes a dead instance’s shard within the TTL and a heartbeat, catching up from its last renewal', async () => {
      alive.clear();
      const a = keeper('bot-dead', 'a', 2);
      const b = keeper('bot-dead', 'b', 2);
      await round(a.keeper, b.keeper);
      clock += HEARTBEAT;
      await round(a.keeper, b.keeper);
      assert.equal(a.links.open.size, 1);
      assert.equal(b.links.open.size, 1);
      const [lost] = [...b.links.open];
      // b dies: no more renewals, its registry row goes quiet.
      const lastRenewal = clock;
      alive.delete('b');
      let waited = 0;
      while (a.links.open.size < 2 && waited <= TTL + HEARTBEAT) {
        clock += HEARTBEAT;
        waited += HEARTBEAT;
        await a.keeper.tick();
      }
      assert.equal(a.links.open.size, 2, 'the survivor runs both shards');
      assert.ok(waited <= TTL + HEARTBEAT, `taken over after ${waited} ms`);
      assert.deepEqual(a.links.takeovers.at(-1), { shard: lost, lostAtMs: lastRenewal });
    });

    it('says a shard may identify only while its lease outlasts a heartbeat, and wakes the gate at each round’s end', async () => {
      alive.clear();
      const a = keeper('bot-gate', 'a', 1);
      await a.keeper.tick();
      assert.equal(a.keeper.holdsSafely(0), true, 'just claimed');
      assert.equal(a.keeper.holdsSafely(1), false, 'a shard it does not hold');
      // A stall: the clock passes the point where an IDENTIFY might arrive after the lease ran out.
      clock += TTL - HEARTBEAT;
      assert.equal(a.keeper.holdsSafely(0), false, 'within a heartbeat of the lease’s end');
      let woken = false;
      const waiting = a.keeper.nextRound().then(() => (woken = true));
      assert.equal(woken, false);
      await a.keeper.tick(); // the renewal
      await waiting;
      assert.equal(a.keeper.holdsSafely(0), true, 'renewed');
      await a.keeper.stop();
      assert.equal(a.keeper.holdsSafely(0), false, 'stopped');
    });

    it(
      'keeps renewing while a shard it gave up is still closing, and gives that lease back once it closed',
      { timeout: 20_000 },
      async () => {
        alive.clear();
        const a = keeper('bot-slow', 'a', 2);
        await a.keeper.tick();
        // Shard 1's close waits (a shard in its handshake is closed once that ends).
        let closed: () => void = () => undefined;
        const disconnect = a.links.disconnect.bind(a.links);
        a.links.disconnect = (shardId) =>
          shardId === 1 ? new Promise<void>((resolve) => (closed = resolve)).then(() => disconnect(1)) : disconnect(0);
        const b = keeper('bot-slow', 'b', 2);
        for (let i = 0; i < 5; i += 1) {
          clock += HEARTBEAT; // five heartbeats: well past the TTL
          await round(a.keeper, b.keeper);
        }
        assert.equal(a.keeper.holdsSafely(0), true, 'shard 0 renewed all along');
        assert.deepEqual(await holders('bot-slow'), { 0: 'a', 1: 'a' }, 'shard 1 still ours while its close runs');
        assert.equal(b.links.open.size, 0);
        closed();
        await waitFor(async () => (await holders('bot-slow'))[1] === undefined, 'shard 1 given back', 10_000);
        clock += HEARTBEAT;
        await round(a.keeper, b.keeper);
        assert.deepEqual([...b.links.open], [1], 'the other instance takes it at its next round');
      },
    );

    it('disconnects at once when its lease was taken, and releases its shards on stop', async () => {
      alive.clear();
      const a = keeper('bot-lost', 'a', 1);
      await a.keeper.tick();
      assert.deepEqual([...a.links.open], [0]);
      // Another holder took the shard (a's lease ran out while it was stalled).
      await db
        .knex('shard_leases')
        .where({ bot: 'bot-lost' })
        .update({ holder: 'x', expires_at: clock + TTL });
      clock += HEARTBEAT;
      await a.keeper.tick();
      assert.equal(a.links.open.size, 0, 'a shard whose lease is gone is disconnected');

      alive.clear();
      const b = keeper('bot-stop', 'b', 2);
      await b.keeper.tick();
      assert.equal(b.links.open.size, 2);
      await b.keeper.stop();
      assert.equal(b.links.open.size, 0);
      assert.deepEqual(await holders('bot-stop'), {}, 'a graceful stop leaves the shards free');
      alive.delete('b');
      const c = keeper('bot-stop', 'c', 2);
      await c.keeper.tick();
      assert.equal(c.links.open.size, 2, 'a successor takes them at its next round');
    });
  });
}
