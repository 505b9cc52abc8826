/** Agent core through the real openai and @anthropic-ai/sdk clients: answers, tool approvals, denial, "always", policies. */
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
  describe(`agent approvals (${vendor})`, () => {
    let h: AgentHarness;
    before(async () => {
      h = await startHarness(vendor);
    });
    after(async () => {
      await h.close();
    });

    it('answers a plain question with turn-end carrying the text', async () => {
      h.llm.enqueue({ text: ['Hello', ' there'], usage: { inputTokens: 10, outputTokens: 3 } });
      const ws = await h.runtime.manager.create({ ownerUserId: h.owner.userId, name: 'plain' });
      const events = record(ws);
      await ws.send('hi');
      const end = await turnEnd(events);
      assert.equal(end.reason, 'done');
      assert.equal(end.text, 'Hello there');
      assert.deepEqual(
        ofType(events, 'text-delta')
          .map((e) => e.text)
          .join(''),
        'Hello there',
      );
      assert.equal(ofType(events, 'turn-start').length, 1);
      const info = await ws.info();
      assert.equal(info.state, 'idle');
      assert.ok(info.inputTokens >= 10);
      const stored = await h.db.stores.conversations.load(ws.wsId);
      assert.deepEqual(
        stored.map((m) => m.role),
        ['user', 'assistant'],
      );
    });

    it('asks before running bash, runs it after approval, and feeds the result to the model', async () => {
      h.llm.enqueue(
        { toolCalls: [{ name: 'bash', arguments: JSON.stringify({ command: 'echo sandpiper-$((40+2))' }) }] },
        { text: 'The output was 42.' },
      );
      const ws = await h.runtime.manager.create({ ownerUserId: h.owner.userId, name: 'tool' });
      const events = record(ws);
      await ws.send('run it');
      const request = await waitFor(() => ofType(events, 'approval-request')[0], 'approval-request');
      assert.equal(request.ownerUserId, h.owner.userId);
      assert.equal(request.items[0]?.name, 'bash');
      const row = await h.db.stores.approvals.get(request.approvalId);
      assert.equal(row?.state, 'pending');
      assert.equal(ofType(events, 'tool-result').length, 0, 'nothing runs before the click');
      const outcome = await h.runtime.manager.resolveApproval(request.approvalId, {
        approved: true,
        decidedBy: h.owner.userId,
      });
      assert.deepEqual(outcome, { status: 'decided', wsId: ws.wsId, approved: true, always: false, feedback: null });
      const end = await turnEnd(events);
      assert.equal(end.text, 'The output was 42.');
      const result = ofType(events, 'tool-result')[0];
      assert.match(result?.output ?? '', /sandpiper-42/);
      const second = h.llm.requests.at(-1);
      const ids = toolIdsOf(vendor, second?.body);
      assert.deepEqual(ids.results, ids.calls);
      assert.match(ids.resultTexts[0] ?? '', /sandpiper-42/);
      const again = await h.runtime.manager.resolveApproval(request.approvalId, {
        approved: false,
        decidedBy: h.owner.userId,
      });
      assert.equal(again.status, 'already-decided');
      assert.ok(ofType(events, 'approval-resolved').length === 1);
    });

    it('refuses a decision from someone who is not the owner', async () => {
      h.llm.enqueue({ toolCalls: [{ name: 'bash', arguments: '{"command":"true"}' }] }, { text: 'ok' });
      const ws = await h.runtime.manager.create({ ownerUserId: h.owner.userId, name: 'forbidden' });
      const events = record(ws);
      await ws.send('go');
      const request = await waitFor(() => ofType(events, 'approval-request')[0], 'approval-request');
      const stranger = await h.db.stores.users.createUser(`bob-${vendor}`);
      const refused = await h.runtime.manager.resolveApproval(request.approvalId, {
        approved: true,
        decidedBy: stranger.userId,
      });
      assert.equal(refused.status, 'forbidden');
      assert.equal((await h.db.stores.approvals.get(request.approvalId))?.state, 'pending');
      await h.runtime.manager.resolveApproval(request.approvalId, {
        approved: true,
        decidedBy: stranger.userId,
        isAdmin: true,
      });
      await turnEnd(events);
    });

    it('tells the model "Denied by user: <feedback>" when the owner rejects', async () => {
      h.llm.enqueue(
        { toolCalls: [{ name: 'bash', arguments: '{"command":"touch should-not-exist"}' }] },
        { text: 'Understood.' },
      );
      const ws = await h.runtime.manager.create({ ownerUserId: h.owner.userId, name: 'deny' });
      const events = record(ws);
      await ws.send('touch');
      const request = await waitFor(() => ofType(events, 'approval-request')[0], 'approval-request');
      await h.runtime.manager.resolveApproval(request.approvalId, {
        approved: false,
        feedback: 'not now',
        decidedBy: h.owner.userId,
      });
      const end = await turnEnd(events);
      assert.equal(end.text, 'Understood.');
      const ids = toolIdsOf(vendor, h.llm.requests.at(-1)?.body);
      assert.equal(ids.resultTexts[0], 'Denied by user: not now');
      const resolved = ofType(events, 'approval-resolved')[0];
      assert.equal(resolved?.approved, false);
      assert.equal(resolved?.feedback, 'not now');
    });

    it('passes approval feedback to the model after the results', async () => {
      h.llm.enqueue({ toolCalls: [{ name: 'bash', arguments: '{"command":"echo hi"}' }] }, { text: 'done' });
      const ws = await h.runtime.manager.create({ ownerUserId: h.owner.userId, name: 'feedback' });
      const events = record(ws);
      await ws.send('go');
      const request = await waitFor(() => ofType(events, 'approval-request')[0], 'approval-request');
      await h.runtime.manager.resolveApproval(request.approvalId, {
        approved: true,
        feedback: 'and be brief',
        decidedBy: h.owner.userId,
      });
      await turnEnd(events);
      assert.match(JSON.stringify(h.llm.requests.at(-1)?.body), /and be brief/);
    });

    it('runs the same label without asking after "always"', async () => {
      h.llm.enqueue({ toolCalls: [{ name: 'bash', arguments: '{"command":"echo one"}' }] }, { text: 'first' });
      const ws = await h.runtime.manager.create({ ownerUserId: h.owner.userId, name: 'always' });
      const events = record(ws);
      await ws.send('one');
      const request = await waitFor(() => ofType(events, 'approval-request')[0], 'approval-request');
      await h.runtime.manager.resolveApproval(request.approvalId, {
        approved: true,
        always: true,
        decidedBy: h.owner.userId,
      });
      await turnEnd(events);
      const grants = await h.db.stores.grants.list({ userId: h.owner.userId, now: '2000-01-01T00:00:00' });
      assert.deepEqual(
        grants.map((g) => [g.scope, g.scopeKey, g.label, g.createdBy, g.approvalId]),
        [['conversation', ws.wsId, 'bash', h.owner.userId, request.approvalId]],
      );
      h.llm.enqueue({ toolCalls: [{ name: 'bash', arguments: '{"command":"echo two"}' }] }, { text: 'second' });
      await ws.send('two');
      const end = await turnEnd(events, 2);
      assert.equal(end.text, 'second');
      assert.equal(ofType(events, 'approval-request').length, 1);
      assert.equal(ofType(events, 'tool-calls').at(-1)?.items[0]?.name, 'bash');
    });

    it('applies tool policies: deny blocks with the policy message, allow runs without asking', async () => {
      const deny = await h.db.stores.policies.create({
        name: 'no rm',
        toolPattern: 'ba*',
        action: 'deny',
        priority: 100,
      });
      h.llm.enqueue({ toolCalls: [{ name: 'bash', arguments: '{"command":"echo x"}' }] }, { text: 'blocked' });
      const ws = await h.runtime.manager.create({ ownerUserId: h.owner.userId, name: 'policy' });
      const events = record(ws);
      await ws.send('x');
      await turnEnd(events);
      assert.equal(ofType(events, 'approval-request').length, 0);
      assert.equal(
        toolIdsOf(vendor, h.llm.requests.at(-1)?.body).resultTexts[0],
        "Blocked by tool policy (pattern match for 'bash')",
      );
      await h.db.stores.policies.delete(deny.policyId);
      const allow = await h.db.stores.policies.create({ name: 'bash ok', toolPattern: 'bash', action: 'allow' });
      h.llm.enqueue({ toolCalls: [{ name: 'bash', arguments: '{"command":"echo allowed-run"}' }] }, { text: 'ran' });
      await ws.send('y');
      await turnEnd(events, 2);
      assert.equal(ofType(events, 'approval-request').length, 0);
      assert.match(ofType(events, 'tool-result').at(-1)?.output ?? '', /allowed-run/);
      await h.db.stores.policies.delete(allow.policyId);
    });
  });
}
