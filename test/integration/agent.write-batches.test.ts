/**
 * The hot path's writes share one transaction per event-loop turn (ADR 0026); what a user sees must not change: an
 * approval request is shown only for a row another connection can already read, and a row that cannot be stored ends
 * the turn with the error notice (no card for a request that is not there) while the turn's other writes still land.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createKnex, type Knex } from '../../src/storage/index.js';
import { ofType, record, startHarness, turnEnd, waitFor, type AgentHarness } from './agent.harness.js';

describe('agent writes batched per event-loop turn', () => {
  let h: AgentHarness;
  let reader: Knex;
  before(async () => {
    h = await startHarness('openai');
    // Another connection, as a restarted process would have: it sees only what was committed.
    reader = createKnex(h.db.url);
  });
  after(async () => {
    await reader.destroy();
    await h.close();
  });

  it('emits the approval request only after its row is committed', async () => {
    h.llm.enqueue(
      { toolCalls: [{ name: 'bash', arguments: JSON.stringify({ command: 'echo batched' }) }] },
      { text: 'Done.' },
    );
    const ws = await h.runtime.manager.create({ ownerUserId: h.owner.userId, name: 'committed-first' });
    const seenAtRequest: Array<Promise<unknown>> = [];
    ws.subscribe((event) => {
      // Read at the moment the card would be posted: a crash right after it must still find the row.
      if (event.type === 'approval-request')
        seenAtRequest.push(reader('approvals').where({ approval_id: event.approvalId, state: 'pending' }).first());
    });
    const events = record(ws);
    await ws.send('run it');
    const request = await waitFor(() => ofType(events, 'approval-request')[0], 'approval-request');
    assert.equal(seenAtRequest.length, 1);
    assert.ok(await seenAtRequest[0], 'the pending row was readable elsewhere when the request was emitted');
    await h.runtime.manager.resolveApproval(request.approvalId, { approved: true, decidedBy: h.owner.userId });
    assert.equal((await turnEnd(events)).text, 'Done.');
  });

  it('ends the turn with the error notice when its approval row cannot be stored, and keeps the user message', async () => {
    // A real database refusal (as a full disk or a broken constraint would give), not a stand-in for our code.
    await h.db.knex.raw(
      "CREATE TRIGGER refuse_approvals BEFORE INSERT ON approvals BEGIN SELECT RAISE(ABORT, 'approvals refused'); END",
    );
    try {
      h.llm.enqueue({ toolCalls: [{ name: 'bash', arguments: JSON.stringify({ command: 'echo never' }) }] });
      const ws = await h.runtime.manager.create({ ownerUserId: h.owner.userId, name: 'refused' });
      const events = record(ws);
      await ws.send('run the refused one');
      const end = await turnEnd(events);
      assert.equal(end.reason, 'error');
      assert.equal(ofType(events, 'approval-request').length, 0, 'no card for a request that is not stored');
      assert.match(ofType(events, 'error')[0]?.message ?? '', /went wrong/);
      assert.equal(ofType(events, 'tool-result').length, 0, 'nothing ran');
      const history = await h.db.stores.conversations.load(ws.wsId);
      assert.equal(history[0]?.role, 'user');
      assert.equal(history[0]?.content, 'run the refused one');
      assert.equal(await reader('approvals').where({ ws_id: ws.wsId }).first(), undefined);
    } finally {
      await h.db.knex.raw('DROP TRIGGER refuse_approvals');
    }
  });
});
