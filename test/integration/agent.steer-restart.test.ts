/**
 * A steer is durable: stored as a waiting message when accepted, so a stop before the running turn's next model call
 * (the in-memory inbox is gone) still runs it after the restart, once, as the next message.
 */
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { describe, it } from 'node:test';
import { createKnex, createStores } from '../../src/storage/index.js';
import { startFakeLlmServer } from '../fakes/fake-llm-server.js';
import { createTestStores } from '../helpers/test-stores.js';
import { ofType, record, startHarness, turnEnd, waitFor } from './agent.harness.js';

describe('steer across a restart', () => {
  it('runs a steer the stopped turn never read after the restart, once', async () => {
    const llm = await startFakeLlmServer();
    const db1 = await createTestStores();
    const first = await startHarness('openai', { db: db1 }, llm);
    const knex2 = createKnex(db1.url);
    try {
      llm.enqueue({ text: ['Working on it'], hang: true });
      const ws = await first.runtime.manager.create({ ownerUserId: first.owner.userId, name: 'steer' });
      const events = record(ws);
      await ws.send('write the report');
      await waitFor(() => ofType(events, 'text-delta')[0], 'the streamed text');
      assert.ok(ws.steer);
      assert.deepEqual(await ws.steer('keep it short'), { status: 'steered' });
      await first.stopRuntime();
      await db1.knex.destroy();

      const stores2 = createStores(knex2);
      const second = await startHarness(
        'openai',
        { db: { ...db1, stores: stores2, knex: knex2, close: async () => undefined }, dataDir: first.dataDir },
        llm,
      );
      assert.deepEqual(
        (await stores2.turnJournal.queued(ws.wsId)).map((row) => row.content),
        [JSON.stringify('[steer] keep it short')],
      );
      // What the gateway's recovery does at start: the interrupted turn is noted (not resumed), then the waiting messages run.
      await second.runtime.manager.interruptedTurns();
      llm.enqueue({ text: 'Short report.' });
      const restored = await second.runtime.manager.get(ws.wsId);
      assert.ok(restored);
      const after = record(restored);
      await second.runtime.manager.finishInterrupted(ws.wsId, false);
      const end = await turnEnd(after);
      assert.equal(end.text, 'Short report.');
      assert.match(JSON.stringify(llm.requests.at(-1)?.body), /\[steer\] keep it short/);
      assert.deepEqual(await stores2.turnJournal.queued(ws.wsId), [], 'run once: its waiting row went with its turn');
      await second.stopRuntime();
    } finally {
      await knex2.destroy();
      await llm.close();
      rmSync(db1.url.replace(/^sqlite:/, '').replace(/[/\\][^/\\]+$/, ''), { recursive: true, force: true });
      rmSync(first.dataDir, { recursive: true, force: true });
    }
  });
});
