/** After a restart, requests of sub-agents (a sub-agent's tool approval, a plan review) are answered as stale: nothing runs. */
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { describe, it } from 'node:test';
import { createKnex, createStores } from '../../src/storage/index.js';
import { startFakeLlmServer } from '../fakes/fake-llm-server.js';
import { createTestStores } from '../helpers/test-stores.js';
import { ofType, record, startHarness, waitFor } from './agent.harness.js';

describe('agent restart with sub-agent requests pending', () => {
  it('never resumes a sub-agent approval or a plan review; the clicks run nothing and the history stays valid', async () => {
    const llm = await startFakeLlmServer();
    const db1 = await createTestStores();
    const first = await startHarness('openai', { db: db1 }, llm);
    const knex2 = createKnex(db1.url);
    try {
      llm.enqueue(
        { toolCalls: [{ name: 'task', arguments: JSON.stringify({ prompt: 'run echo sub' }) }] },
        { toolCalls: [{ name: 'bash', arguments: JSON.stringify({ command: 'echo should-not-run > marker.txt' }) }] },
      );
      const ws = await first.runtime.manager.create({ ownerUserId: first.owner.userId, name: 'sub-restart' });
      const events = record(ws);
      await ws.send('delegate');
      const taskApproval = await waitFor(() => ofType(events, 'approval-request')[0], 'task approval');
      await first.runtime.manager.resolveApproval(taskApproval.approvalId, {
        approved: true,
        decidedBy: first.owner.userId,
      });
      const subApproval = await waitFor(() => ofType(events, 'approval-request')[1], 'sub-agent approval');
      await first.stopRuntime();
      await db1.knex.destroy();

      const stores2 = createStores(knex2);
      const second = await startHarness(
        'openai',
        { db: { ...db1, stores: stores2, knex: knex2, close: async () => undefined }, dataDir: first.dataDir },
        llm,
      );
      const outcome = await second.runtime.manager.resolveApproval(subApproval.approvalId, {
        approved: true,
        decidedBy: first.owner.userId,
      });
      assert.deepEqual(outcome, { status: 'cancelled', wsId: ws.wsId, reason: 'stale' });
      assert.equal(llm.requests.length, 2, 'no model call after the restart');
      const history = await stores2.conversations.load(ws.wsId);
      const last = history.at(-1);
      assert.equal(
        last?.role === 'tool' || last?.role === 'user',
        true,
        'no assistant tool call is left without a result',
      );
      await second.stopRuntime();
    } finally {
      await knex2.destroy();
      await llm.close();
      rmSync(db1.url.replace(/^sqlite:/, '').replace(/[/\\][^/\\]+$/, ''), { recursive: true, force: true });
      rmSync(first.dataDir, { recursive: true, force: true });
    }
  });
});
