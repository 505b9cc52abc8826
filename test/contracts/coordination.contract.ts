/**
 * Contract suite for the coordination port (ADR 0052), run on LocalCoordination (SQLite) and PostgresCoordination
 * (PostgreSQL, when SANDPIPER_TEST_PG_URL is set). What a single instance and a cluster share: a workstream run here
 * is located here, a closed or unknown one nowhere, a replayed message is admitted once. What only a cluster has (a
 * second instance on the same database): a workstream held by A is a remote placement on B, content handed off on B
 * reaches A, and identify calls of one bucket are paced across both.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { InboundEvent } from '../../src/channels/channel-adapter.js';
import type { Coordination, GatewayHooks, WorkstreamPlacement } from '../../src/gateway/cluster/coordination.js';
import { InboundLedger } from '../../src/gateway/inbound-ledger.js';
import { createSilentLogger } from '../../src/shared/logger.js';
import type { Stores } from '../../src/storage/stores.js';
import { waitFor } from '../helpers/wait-for.js';

export interface CoordinationInstance {
  coordination: Coordination;
  placement: WorkstreamPlacement;
}

export interface CoordinationWorld {
  stores: Stores;
  /** A new instance on the world's database (its own agent runtime); `id` is its instance id. */
  instance(id: string, stores?: Stores): Promise<CoordinationInstance>;
  /** Whether a second instance may share the database (a cluster), else the suite's cluster cases are skipped. */
  shared: boolean;
  close(): Promise<void>;
}

const logger = createSilentLogger();

function message(channelId: string, messageId: string): InboundEvent {
  return {
    type: 'message',
    conversation: { kind: 'thread', channelId },
    messageId,
    text: 'hi',
    user: { id: 'u1', name: 'u1' },
  } as unknown as InboundEvent;
}

/** Gateway hooks that record what was delivered to them. */
function recordingHooks(): GatewayHooks & { delivered: Array<{ wsId: string; content: unknown }> } {
  const delivered: Array<{ wsId: string; content: unknown }> = [];
  return {
    delivered,
    deliver: async (wsId, content) => {
      delivered.push({ wsId, content });
      return true;
    },
    settleTakenOver: async () => undefined,
    renderWhile: (_wsId, work) => work(),
  };
}

export function coordinationContract(label: string, open: () => Promise<CoordinationWorld>): void {
  describe(`Coordination contract (${label})`, () => {
    let world: CoordinationWorld;
    let a: CoordinationInstance;
    let owner: string;
    before(async () => {
      world = await open();
      a = await world.instance('instance-a');
      owner = (await world.stores.users.createUser(`owner-${label.replace(/\W/g, '')}`)).userId;
    });
    after(async () => {
      await world?.close();
    });

    it('locates a workstream it runs as local, and an unknown or closed one nowhere', async () => {
      const ws = await a.placement.manager.create({ ownerUserId: owner, name: 'local one' });
      const placement = await a.placement.locate(ws.wsId);
      assert.equal(placement?.kind, 'local');
      assert.equal(placement?.kind === 'local' ? placement.ws.wsId : undefined, ws.wsId);
      assert.equal(placement?.ownerUserId, owner);
      assert.equal(await a.placement.locate('ws-that-never-was'), undefined);
      assert.equal(await a.placement.manager.close(ws.wsId, 'test'), true);
      assert.equal(await a.placement.locate(ws.wsId), undefined, 'a closed workstream is nowhere');
    });

    it('admits a message once: its replay is a duplicate', async () => {
      const ledger = new InboundLedger(world.stores.inboundEvents, Date.now, logger, a.placement.recentClaims());
      await ledger.loadFloors(['contract']);
      assert.equal(await ledger.admit('contract', message('c1', '1000')), true);
      assert.equal(await ledger.admit('contract', message('c1', '1000')), false, 'the replay is refused');
      assert.equal(await ledger.admit('contract', message('c1', '1001')), true, 'the next message is new');
    });

    it('a workstream held by one instance is remote on another, and what is handed off there reaches the holder', async (t) => {
      if (!world.shared) return t.skip('one instance per database');
      const hooks = recordingHooks();
      a.placement.attach(hooks);
      await a.placement.start();
      const b = await world.instance('instance-b');
      b.placement.attach(recordingHooks());
      const ws = await a.placement.manager.create({ ownerUserId: owner, name: 'held by a' });
      assert.equal((await a.placement.locate(ws.wsId))?.kind, 'local', 'the creator holds it');
      const there = await b.placement.locate(ws.wsId);
      assert.ok(there?.kind === 'remote', 'another instance sees it held elsewhere');
      assert.equal(there.holder, 'instance-a');
      assert.equal(there.ownerUserId, owner);
      const outcome = await there.handOff('handed over', undefined, undefined);
      assert.equal(outcome.status, 'accepted');
      const got = await waitFor(
        () => hooks.delivered.find((entry) => entry.wsId === ws.wsId),
        'the handoff on the holder',
      );
      assert.equal(got.content, 'handed over');
      await a.placement.stop();
    });

    it('paces identify calls of one bucket across instances (locally: discord.js paces its own)', async (t) => {
      if (!world.shared) {
        assert.equal(a.coordination.identifyThrottle(2), undefined);
        return t.skip('one instance per database: discord.js throttles identify in-process');
      }
      const waits: number[] = [];
      const controller = new AbortController();
      const spied: Stores = {
        ...world.stores,
        identifySlots: {
          take: async (bucket, windowMs) => {
            const wait = await world.stores.identifySlots.take(bucket, windowMs);
            waits.push(wait);
            if (wait > 0) controller.abort();
            return wait;
          },
        },
      };
      const b = await world.instance('instance-b2', spied);
      const first = a.coordination.identifyThrottle(2);
      const second = b.coordination.identifyThrottle(2);
      assert.ok(first && second);
      await first.waitForIdentify(0, new AbortController().signal);
      await second.waitForIdentify(1, controller.signal);
      assert.deepEqual(waits, [0], 'another bucket identifies at once');
      await assert.rejects(
        second.waitForIdentify(2, controller.signal),
        { name: 'AbortError' },
        'the same bucket waits for its window',
      );
      assert.equal(waits.length, 2);
      assert.ok((waits[1] ?? 0) > 0 && (waits[1] ?? 0) <= 5000, `waited ${waits[1]} ms of the 5 s window`);
    });
  });
}
