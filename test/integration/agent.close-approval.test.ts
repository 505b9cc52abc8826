/** Closing a workstream with an approval pending reports its end; clicks nobody waits for any more are `stale`. */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { AgentEvent } from '../../src/agent/events.js';
import { ofType, record, startHarness, turnEnd, waitFor, type AgentHarness } from './agent.harness.js';

const BASH = { name: 'bash', arguments: '{"command":"echo hi"}' };

describe('agent: closing with a pending approval, and stale approval clicks', () => {
  let h: AgentHarness;
  before(async () => {
    h = await startHarness('openai');
  });
  after(async () => {
    await h.close();
  });

  /** A new workstream whose turn waits for an approval of `bash`. */
  async function pendingApproval(name: string): Promise<{ wsId: string; approvalId: string; events: AgentEvent[] }> {
    h.llm.enqueue({ toolCalls: [BASH] });
    const ws = await h.runtime.manager.create({ ownerUserId: h.owner.userId, name });
    const events = record(ws);
    await ws.send('run it');
    const request = await waitFor(() => ofType(events, 'approval-request')[0], 'approval-request');
    return { wsId: ws.wsId, approvalId: request.approvalId, events };
  }

  it('emits approval-resolved (cancelled by the system) before workstream-closed', async () => {
    const { wsId, approvalId, events } = await pendingApproval('close me');
    assert.equal(await h.runtime.manager.close(wsId, 'closed by test'), true);
    const closedAt = events.findIndex((event) => event.type === 'workstream-closed');
    assert.ok(closedAt >= 0, 'workstream-closed was emitted');
    const resolved = ofType(events, 'approval-resolved');
    assert.deepEqual(resolved, [
      {
        type: 'approval-resolved',
        approvalId,
        outcome: 'cancelled',
        approved: false,
        always: false,
        feedback: 'Cancelled',
        decidedBy: 'system',
      },
    ]);
    assert.ok(events.indexOf(resolved[0] as AgentEvent) < closedAt, 'the resolution comes before workstream-closed');
    assert.equal((await h.db.stores.approvals.get(approvalId))?.state, 'cancelled');
    assert.equal(ofType(events, 'tool-result').length, 0, 'nothing ran');
  });

  it('emits approval-resolved when a workstream restored with a pending approval is closed', async () => {
    const { wsId, approvalId } = await pendingApproval('restored then closed');
    await h.stopRuntime();
    const second = await startHarness('openai', { db: h.db, dataDir: h.dataDir }, h.llm);
    try {
      const ws = await second.runtime.manager.get(wsId);
      assert.ok(ws, 'restored');
      const events = record(ws);
      assert.equal((await ws.info()).pendingApprovals, 1);
      assert.equal(await second.runtime.manager.close(wsId, 'closed after restart'), true);
      const resolved = ofType(events, 'approval-resolved');
      assert.equal(resolved.length, 1);
      assert.equal(resolved[0]?.approvalId, approvalId);
      assert.equal(resolved[0]?.decidedBy, 'system');
      assert.ok(
        events.findIndex((event) => event.type === 'approval-resolved') <
          events.findIndex((event) => event.type === 'workstream-closed'),
      );
    } finally {
      await second.stopRuntime();
      h = await startHarness('openai', { db: h.db, dataDir: h.dataDir }, h.llm);
    }
  });

  it('answers stale for a pending row no turn waits for, ends it, and leaves the live request alone', async () => {
    const { wsId, approvalId, events } = await pendingApproval('two rows');
    // A leftover from a crash: an older request of the same workstream that nothing will ever resume.
    await h.db.stores.approvals.create({
      approvalId: 'leftover0001',
      wsId,
      turnId: 'old-turn',
      kind: 'tools',
      ownerUserId: h.owner.userId,
      items: { version: 1, calls: [] },
    });
    const stale = await h.runtime.manager.resolveApproval('leftover0001', {
      approved: true,
      decidedBy: h.owner.userId,
    });
    assert.deepEqual(stale, { status: 'cancelled', wsId, reason: 'stale' });
    const ended = await h.db.stores.approvals.get('leftover0001');
    assert.equal(ended?.state, 'denied');
    assert.equal(ended?.decidedBy, 'system');
    const again = await h.runtime.manager.resolveApproval('leftover0001', {
      approved: true,
      decidedBy: h.owner.userId,
    });
    assert.equal(again.status, 'already-decided', 'a second click does not revive it');

    assert.equal((await h.db.stores.approvals.get(approvalId))?.state, 'pending', 'the live request is untouched');
    h.llm.enqueue({ text: 'done' });
    const live = await h.runtime.manager.resolveApproval(approvalId, { approved: true, decidedBy: h.owner.userId });
    assert.deepEqual(live, { status: 'decided', wsId, approved: true, always: false, feedback: null });
    const end = await turnEnd(events);
    assert.equal(end.reason, 'done');
    assert.equal(ofType(events, 'tool-result').length, 1);
  });

  it('answers stale when the workstream of a pending row was deleted', async () => {
    const { wsId, approvalId } = await pendingApproval('deleted');
    await h.stopRuntime();
    await h.db.stores.workstreams.delete(wsId);
    h = await startHarness('openai', { db: h.db, dataDir: h.dataDir }, h.llm);
    const outcome = await h.runtime.manager.resolveApproval(approvalId, { approved: true, decidedBy: h.owner.userId });
    assert.deepEqual(outcome, { status: 'cancelled', wsId, reason: 'stale' });
    assert.equal((await h.db.stores.approvals.get(approvalId))?.decidedBy, 'system');
  });
});
