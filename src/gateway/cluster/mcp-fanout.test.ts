/** McpFanout on SQLite stores: replies are counted per instance, a failure is named, a silent instance is missing. */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createSilentLogger } from '../../shared/logger.js';
import { createTestStores, type TestStores } from '../../../test/helpers/test-stores.js';
import { waitFor } from '../../../test/helpers/wait-for.js';
import { SERVICE_TYPE } from '../registry.js';
import { McpFanout, type McpControl } from './mcp-fanout.js';

describe('McpFanout', () => {
  let db: TestStores;
  before(async () => {
    db = await createTestStores();
    for (const id of ['a', 'b', 'c', 'd'])
      await db.stores.services.register({ serviceType: SERVICE_TYPE, serviceId: id, url: `http://${id}` });
  });
  after(() => db.close());

  const fanout = (instanceId: string, apply: (control: McpControl) => Promise<void>, waitMs = 60_000) =>
    new McpFanout({
      handoffs: db.stores.handoffs,
      services: db.stores.services,
      instanceId,
      liveWithinS: 60,
      waitMs,
      apply,
      logger: createSilentLogger(),
    });

  /** Delivers the rows addressed to each instance, as its inbox would (claim, then handle). */
  async function deliver(to: Record<string, McpFanout>): Promise<number> {
    let delivered = 0;
    for (const [id, target] of Object.entries(to)) {
      for (const row of await db.stores.handoffs.listUnclaimed(id, 100)) {
        if (await db.stores.handoffs.claim(row.id, id, Date.now())) {
          await target.handle(row);
          delivered += 1;
        }
      }
    }
    return delivered;
  }

  it('reports who applied, who failed (with the reason) and who did not answer', async () => {
    const applied: string[] = [];
    // The wait only bounds how long d is waited for (d never answers); b and c answer well within it.
    const a = fanout('a', () => Promise.reject(new Error('not used')), 2_000);
    const b = fanout('b', async (control) => void applied.push(`b:${control.action}`));
    const c = fanout('c', () => Promise.reject(new Error('unknown MCP server "x"\nsecond line')));
    const report = a.fanOut({ action: 'reconnect', server: 'x' });
    // b and c answer; d is registered but never takes its row.
    let handled = 0;
    await waitFor(async () => (handled += await deliver({ b, c })) === 2, 'the requests to b and c');
    await deliver({ a });
    const result = await report;
    assert.deepEqual(applied, ['b:reconnect']);
    assert.deepEqual(result, {
      applied: ['a', 'b'],
      failed: [{ instance: 'c', error: 'unknown MCP server "x"' }],
      missing: ['d'],
    });
  });

  it('answers at once with only itself when no other instance is live', async () => {
    const lone = new McpFanout({
      handoffs: db.stores.handoffs,
      services: { listHealthy: () => Promise.resolve([]) },
      instanceId: 'a',
      liveWithinS: 60,
      waitMs: 60_000,
      apply: () => Promise.resolve(),
      logger: createSilentLogger(),
    });
    assert.deepEqual(await lone.fanOut({ action: 'reload' }), { applied: ['a'], failed: [], missing: [] });
  });
});
