import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createSilentLogger } from '../../shared/logger.js';
import { createTestStores, type TestStores } from '../../../test/helpers/test-stores.js';
import { ClusterNode } from './cluster-node.js';
import type { ClusteredWorkstreamManager } from './clustered-manager.js';
import type { HandoffInbox } from './handoffs.js';
import { LeaseKeeper } from './lease-keeper.js';

/** A bound on a wait that should end at once, so a regression fails instead of hanging the file. */
function failAfter(ms: number, what: string): Promise<never> {
  return new Promise((_, reject) => setTimeout(() => reject(new Error(what)), ms).unref());
}

describe('ClusterNode', () => {
  let db: TestStores;
  let clock = 5_000_000;
  const now = (): number => clock;

  before(async () => {
    db = await createTestStores();
  });
  after(() => db.close());

  it('keeps renewing its own leases while a takeover of a dead instance’s work is still running', async () => {
    const keeper = new LeaseKeeper({ store: db.stores.workstreamLeases, instanceId: 'me', ttlMs: 3000, now });
    const dead = new LeaseKeeper({ store: db.stores.workstreamLeases, instanceId: 'dead', ttlMs: 3000, now });
    assert.deepEqual(await keeper.claim('mine'), { own: true });
    assert.deepEqual(await dead.claim('left'), { own: true });
    await db.stores.turnJournal.apply([{ kind: 'begin', turnId: 't-left', wsId: 'left', resumed: false }]);
    clock += 4000; // the dead instance's lease expired; this one renews from now on

    let finishTakeover: () => void = () => undefined;
    let takeoverStarted: () => void = () => undefined;
    const started = new Promise<void>((resolve) => (takeoverStarted = resolve));
    // Each renewal ends by handing its lost leases to the manager: the test waits on that, not on the clock.
    let renewed: () => void = () => undefined;
    const takeovers: string[] = [];
    const manager = {
      forgetLost: (lost: readonly string[]) => {
        assert.deepEqual(lost, [], 'no lease of its own is lost');
        renewed();
      },
      takeOverExpired: async (wsId: string) => {
        takeovers.push(wsId);
        takeoverStarted();
        await new Promise<void>((resolve) => (finishTakeover = resolve));
        return true;
      },
      releaseIdle: () => Promise.resolve(),
    } as unknown as ClusteredWorkstreamManager;
    const inbox = { poll: () => Promise.resolve(), stop: () => Promise.resolve() } as unknown as HandoffInbox;
    const node = new ClusterNode({
      stores: db.stores,
      keeper,
      manager,
      inbox,
      heartbeatMs: 1000,
      logger: createSilentLogger(),
      now,
    });

    const first = node.beat();
    await started;
    // The takeover hangs across five heartbeats; each beat still renews this instance's lease.
    for (let beat = 0; beat < 5; beat += 1) {
      clock += 1000;
      const renewal = new Promise<void>((resolve) => (renewed = resolve));
      void node.beat();
      await Promise.race([renewal, failAfter(5_000, `no renewal at beat ${beat} while the takeover runs`)]);
      const lease = await db.stores.workstreamLeases.get('mine');
      assert.equal(lease?.holder, 'me');
      assert.equal(lease?.expiresAt, clock + 3000, `renewed at beat ${beat}, with the takeover still running`);
    }
    assert.deepEqual(takeovers, ['left'], 'the takeover is not started twice while it runs');
    finishTakeover();
    await first;
    await node.stop();
  });
});
