/** Cancellation through the real SDK clients: mid-stream and mid-tool, leaving a provider-valid history. */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import {
  ofType,
  record,
  startHarness,
  toolIdsOf,
  turnEnd,
  VENDORS,
  waitFor,
  type AgentHarness,
} from './agent.harness.js';

for (const vendor of VENDORS) {
  describe(`agent cancellation (${vendor})`, () => {
    let h: AgentHarness;
    before(async () => {
      h = await startHarness(vendor);
    });
    after(async () => {
      await h.close();
    });

    it('cancels mid-stream, keeps the partial answer, and the next turn works', async () => {
      h.llm.enqueue({ text: ['Hello', ' wor'], hang: true });
      const ws = await h.runtime.manager.create({ ownerUserId: h.owner.userId, name: 'cancel-stream' });
      const events = record(ws);
      await ws.send('talk');
      await waitFor(() => ofType(events, 'text-delta').length >= 2, 'streamed text');
      ws.cancel();
      const end = await turnEnd(events);
      assert.equal(end.reason, 'cancelled');
      assert.equal(end.text, 'Hello wor');
      await waitFor(() => h.llm.requests.at(-1)?.clientClosed, 'stream aborted');
      h.llm.enqueue({ text: 'fresh' });
      await ws.send('again');
      assert.equal((await turnEnd(events, 2)).text, 'fresh');
      const stored = await h.db.stores.conversations.load(ws.wsId);
      assert.deepEqual(
        stored.map((m) => m.role),
        ['user', 'assistant', 'user', 'assistant'],
      );
    });

    it('cancels a running bash call and answers every call in the history', async () => {
      h.llm.enqueue({
        toolCalls: [{ id: 'call_sleep', name: 'bash', arguments: '{"command":"echo started; sleep 30"}' }],
      });
      const ws = await h.runtime.manager.create({ ownerUserId: h.owner.userId, name: 'cancel-tool' });
      const events = record(ws);
      await ws.send('sleep');
      const request = await waitFor(() => ofType(events, 'approval-request')[0], 'approval-request');
      await h.runtime.manager.resolveApproval(request.approvalId, { approved: true, decidedBy: h.owner.userId });
      await waitFor(() => ofType(events, 'tool-output-chunk').some((e) => e.chunk.includes('started')), 'bash started');
      ws.cancel();
      const end = await turnEnd(events);
      assert.equal(end.reason, 'cancelled');
      h.llm.enqueue({ text: 'ok then' });
      await ws.send('next');
      await turnEnd(events, 2);
      const ids = toolIdsOf(vendor, h.llm.requests.at(-1)?.body);
      assert.deepEqual(ids.results, ids.calls);
      assert.deepEqual(ids.calls, ['call_sleep']);
      assert.equal(ids.resultTexts[0], 'Cancelled by user');
      const stored = await h.db.stores.conversations.load(ws.wsId);
      assert.deepEqual(
        stored.map((m) => m.role),
        ['user', 'assistant', 'tool', 'user', 'assistant'],
      );
    });

    it('cancels while waiting for approval: the row is cancelled and a late click changes nothing', async () => {
      h.llm.enqueue({ toolCalls: [{ id: 'call_wait', name: 'bash', arguments: '{"command":"touch late-click"}' }] });
      const ws = await h.runtime.manager.create({ ownerUserId: h.owner.userId, name: 'cancel-approval' });
      const events = record(ws);
      await ws.send('touch');
      const request = await waitFor(() => ofType(events, 'approval-request')[0], 'approval-request');
      ws.cancel();
      assert.equal((await turnEnd(events)).reason, 'cancelled');
      assert.equal((await h.db.stores.approvals.get(request.approvalId))?.state, 'cancelled');
      const late = await h.runtime.manager.resolveApproval(request.approvalId, {
        approved: true,
        decidedBy: h.owner.userId,
      });
      assert.equal(late.status, 'already-decided');
      assert.equal(ofType(events, 'tool-result').length, 0);
    });
  });
}
