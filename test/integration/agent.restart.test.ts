/** Durable approvals: after a restart (new manager, new knex, same SQLite file) a pending approval still runs, exactly once. */
import assert from 'node:assert/strict';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { createKnex, createStores } from '../../src/storage/index.js';
import { startFakeLlmServer } from '../fakes/fake-llm-server.js';
import { createTestStores } from '../helpers/test-stores.js';
import { ofType, record, startHarness, turnEnd, VENDORS, waitFor } from './agent.harness.js';

for (const vendor of VENDORS) {
  describe(`agent restart with a pending approval (${vendor})`, () => {
    it('restores the workstream on the click, runs the stored call once, and finishes the turn', async () => {
      const llm = await startFakeLlmServer();
      const db1 = await createTestStores();
      const first = await startHarness(vendor, { db: db1 }, llm);
      const knex2 = createKnex(db1.url);
      try {
        llm.enqueue({
          toolCalls: [
            { id: 'call_once', name: 'bash', arguments: '{"command":"echo ran >> count.txt; echo counted"}' },
          ],
        });
        const ws = await first.runtime.manager.create({ ownerUserId: first.owner.userId, name: 'restart' });
        const events = record(ws);
        await ws.send('count');
        const request = await waitFor(() => ofType(events, 'approval-request')[0], 'approval-request');
        await first.stopRuntime();
        await db1.knex.destroy();

        const stores2 = createStores(knex2);
        const second = await startHarness(
          vendor,
          { db: { ...db1, stores: stores2, knex: knex2, close: async () => undefined }, dataDir: first.dataDir },
          llm,
        );
        assert.equal((await stores2.approvals.get(request.approvalId))?.state, 'pending');
        llm.enqueue({ text: 'counted once' });
        // Subscribed before the click, as the gateway binds the thread first: the resumed turn is seen from its start.
        const restored = await second.runtime.manager.get(ws.wsId);
        assert.ok(restored);
        const after = record(restored);
        const outcome = await second.runtime.manager.resolveApproval(request.approvalId, {
          approved: true,
          decidedBy: first.owner.userId,
        });
        assert.deepEqual(outcome, { status: 'decided', wsId: ws.wsId, approved: true, always: false, feedback: null });
        const end = await turnEnd(after);
        assert.equal(end.reason, 'done');
        assert.equal(end.text, 'counted once');
        assert.equal(ofType(after, 'turn-start')[0]?.turnId, end.turnId);
        assert.equal(ofType(after, 'approval-resolved')[0]?.approved, true);
        assert.match(ofType(after, 'tool-result')[0]?.output ?? '', /counted/);
        const count = readFileSync(join(second.config.agent.workspace_dir, ws.wsId, 'count.txt'), 'utf8');
        assert.equal(count, 'ran\n');
        assert.equal((await stores2.approvals.get(request.approvalId))?.state, 'executed');
        const again = await second.runtime.manager.resolveApproval(request.approvalId, {
          approved: true,
          decidedBy: first.owner.userId,
        });
        assert.equal(again.status, 'already-decided');
        const history = await stores2.conversations.load(ws.wsId);
        assert.deepEqual(
          history.map((m) => m.role),
          ['user', 'assistant', 'tool', 'assistant'],
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
}
