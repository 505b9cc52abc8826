/** task and plan sub-agents through the real openai and @anthropic-ai/sdk clients: tool sets, approvals, plan reviews, cancel, watch chains. */
import assert from 'node:assert/strict';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { MAX_WATCH_CHAIN, WATCH_HELD_NOTE } from '../../src/agent/workstream-jobs.js';
import type { RecordedRequest } from '../fakes/fake-llm-server.js';
import {
  ofType,
  record,
  startHarness,
  toolIdsOf,
  turnEnd,
  VENDORS,
  waitFor,
  type AgentHarness,
  type Vendor,
} from './agent.harness.js';

const PLAN_A = [
  '## Goal',
  'Add retries to the uploader.',
  '## Current State',
  'src/upload.ts:40 sends once and gives up on the first network error.',
  '## Plan',
  '1. Wrap send() in src/upload.ts with three attempts and a backoff.',
  '2. Cover it in test/upload.test.ts.',
  '## Risks',
  'Duplicate uploads when the server is slow to answer.',
].join('\n');
const PLAN_B = `${PLAN_A}\n3. Add error handling: surface the last error to the caller.`;
const PLAN_C = `${PLAN_B}\n4. Document the retry settings in README.md.`;

/** System text and tool names a request carried, for either wire format. */
function requestFacts(
  vendor: Vendor,
  request: RecordedRequest | undefined,
): { system: string; tools: string[]; body: string } {
  const body = (request?.body ?? {}) as Record<string, unknown>;
  const tools = ((body['tools'] as Array<Record<string, unknown>> | undefined) ?? []).map((tool) =>
    String(vendor === 'openai' ? (tool['function'] as Record<string, unknown>)['name'] : tool['name']),
  );
  const messages = (body['messages'] as Array<Record<string, unknown>> | undefined) ?? [];
  const system = vendor === 'openai' ? String(messages[0]?.['content'] ?? '') : JSON.stringify(body['system'] ?? '');
  return { system, tools, body: JSON.stringify(body) };
}

for (const vendor of VENDORS) {
  describe(`agent sub-agents (${vendor})`, () => {
    let h: AgentHarness;
    before(async () => {
      h = await startHarness(vendor);
    });
    after(async () => {
      await h.close();
    });

    const approveNext = async (events: ReturnType<typeof record>, n: number): Promise<void> => {
      const request = await waitFor(() => ofType(events, 'approval-request')[n - 1], `approval-request #${n}`);
      await h.runtime.manager.resolveApproval(request.approvalId, { approved: true, decidedBy: h.owner.userId });
    };

    it('runs task as an autonomous sub-agent with the task tool set; its calls follow the approval rules', async () => {
      h.llm.enqueue(
        {
          toolCalls: [{ name: 'task', arguments: JSON.stringify({ prompt: 'Read notes.txt and run echo sub-ran.' }) }],
        },
        { toolCalls: [{ name: 'read_file', arguments: JSON.stringify({ path: 'notes.txt' }) }] },
        { toolCalls: [{ name: 'bash', arguments: JSON.stringify({ command: 'echo sub-ran' }) }] },
        { text: 'Report: the notes say heron; bash printed sub-ran.' },
        { text: 'The task reported heron.' },
      );
      const ws = await h.runtime.manager.create({ ownerUserId: h.owner.userId, name: 'task' });
      // A file already in the workspace (the folder of a new workstream is made in the background).
      const folder = path.join(h.config.agent.workspace_dir, ws.wsId);
      await mkdir(folder, { recursive: true });
      await writeFile(path.join(folder, 'notes.txt'), 'heron\n');
      const events = record(ws);
      await ws.send('please delegate this');
      await approveNext(events, 1);
      await approveNext(events, 2);
      const end = await turnEnd(events);
      assert.equal(end.text, 'The task reported heron.');

      const auto = ofType(events, 'tool-calls').flatMap((event) => event.items);
      assert.ok(
        auto.some((item) => item.header.startsWith('[task] ⚙ read_file')),
        'the auto-approved read ran without a card and shows as progress',
      );
      const asked = ofType(events, 'approval-request')[1];
      assert.match(asked?.items[0]?.header ?? '', /^\[task\] ⚙ bash: echo sub-ran/);
      assert.ok(ofType(events, 'tool-result').some((result) => /sub-ran/.test(result.output)));

      const sub = requestFacts(vendor, h.llm.requests.at(-4));
      assert.match(sub.system, /autonomous sub-agent/);
      assert.ok(sub.tools.includes('bash') && sub.tools.includes('write_file'));
      for (const hidden of ['task', 'plan', 'watch', 'memory', 'recall'])
        assert.ok(!sub.tools.includes(hidden), `${hidden} is not offered to the task agent`);
      assert.doesNotMatch(sub.body, /please delegate this/, 'the sub-agent does not see the conversation');
      const last = toolIdsOf(vendor, h.llm.requests.at(-1)?.body);
      assert.match(last.resultTexts.at(-1) ?? '', /Report: the notes say heron/);
      const stored = await h.db.stores.conversations.load(ws.wsId);
      assert.deepEqual(
        stored.map((message) => message.role),
        ['user', 'assistant', 'tool', 'assistant'],
        "the sub-agent's transcript is not persisted",
      );
    });

    it('plans read-only, writes .plan-<ws>.md, refines on requested changes, and reports the approval', async () => {
      h.llm.enqueue(
        { toolCalls: [{ name: 'plan', arguments: JSON.stringify({ prompt: 'add retries to the uploader' }) }] },
        { text: PLAN_A },
        { text: PLAN_B },
        { text: 'I will implement the approved plan.' },
      );
      const ws = await h.runtime.manager.create({ ownerUserId: h.owner.userId, name: 'plan' });
      const events = record(ws);
      await ws.send('plan it first');
      await approveNext(events, 1);
      const first = await waitFor(() => ofType(events, 'plan-review')[0], 'plan-review');
      assert.equal(first.content, PLAN_A);
      const planner = requestFacts(vendor, h.llm.requests.at(-1));
      assert.match(planner.system, /planning agent/);
      assert.ok(
        planner.tools.includes('read_file') && !planner.tools.includes('bash') && !planner.tools.includes('write_file'),
        'read-only tool set',
      );
      assert.equal(toolIdsOf(vendor, h.llm.requests.at(-1)?.body).results.length, 0, 'no earlier plan to forward');
      const file = path.join(h.config.agent.workspace_dir, ws.wsId, `.plan-${ws.wsId}.md`);
      assert.equal((await readFile(file, 'utf8')).trim(), PLAN_A);

      await h.runtime.manager.resolveApproval(first.approvalId, {
        approved: false,
        feedback: 'add error handling',
        decidedBy: h.owner.userId,
      });
      const second = await waitFor(() => ofType(events, 'plan-review')[1], 'second plan-review');
      assert.equal(second.content, PLAN_B);
      const refine = toolIdsOf(vendor, h.llm.requests.at(-1)?.body);
      assert.equal(refine.calls.length, 1);
      assert.deepEqual(refine.results, refine.calls);
      assert.equal(refine.resultTexts[0], PLAN_A, 'the refinement starts from the current plan');
      assert.match(requestFacts(vendor, h.llm.requests.at(-1)).body, /add error handling/);

      await h.runtime.manager.resolveApproval(second.approvalId, { approved: true, decidedBy: h.owner.userId });
      assert.equal((await turnEnd(events)).text, 'I will implement the approved plan.');
      const result = toolIdsOf(vendor, h.llm.requests.at(-1)?.body).resultTexts.at(-1) ?? '';
      assert.ok(result.startsWith(PLAN_B));
      assert.match(result, /The user approved this plan/);
      assert.match(result, new RegExp(`Plan saved to \`\\.plan-${ws.wsId}\\.md\``));
      assert.equal((await readFile(file, 'utf8')).trim(), PLAN_B);

      // A second plan call refines from the latest accepted plan: exactly that call/result pair is forwarded.
      h.llm.enqueue(
        { toolCalls: [{ name: 'plan', arguments: JSON.stringify({ prompt: 'also document it' }) }] },
        { text: PLAN_C },
        { text: 'Done planning.' },
      );
      await ws.send('extend the plan');
      await approveNext(events, 2);
      const third = await waitFor(() => ofType(events, 'plan-review')[2], 'third plan-review');
      const forwarded = toolIdsOf(vendor, h.llm.requests.at(-1)?.body);
      assert.equal(forwarded.calls.length, 1);
      assert.ok(forwarded.resultTexts[0]?.startsWith(PLAN_B));
      await h.runtime.manager.resolveApproval(third.approvalId, {
        approved: false,
        feedback: null,
        decidedBy: h.owner.userId,
      });
      await turnEnd(events, 2);
      assert.match(
        toolIdsOf(vendor, h.llm.requests.at(-1)?.body).resultTexts.at(-1) ?? '',
        /The user rejected this plan. Do not implement it/,
      );
    });

    it('cancels a running sub-agent with the turn', async () => {
      h.llm.enqueue(
        { toolCalls: [{ name: 'task', arguments: JSON.stringify({ prompt: 'think for a long time' }) }] },
        { text: ['thinking'], hang: true },
      );
      const ws = await h.runtime.manager.create({ ownerUserId: h.owner.userId, name: 'cancel' });
      const events = record(ws);
      await ws.send('delegate and cancel');
      await approveNext(events, 1);
      await waitFor(() => h.llm.requests.at(-1)?.script?.hang === true, 'the sub-agent call');
      ws.cancel();
      const end = await turnEnd(events);
      assert.equal(end.reason, 'cancelled');
      const stored = await h.db.stores.conversations.load(ws.wsId);
      assert.equal(stored.at(-1)?.role, 'tool');
      assert.match(JSON.stringify(stored.at(-1)?.content), /Cancelled by user/);
    });

    it(`holds a watch result after ${MAX_WATCH_CHAIN} watch-triggered turns in a row until a person writes`, async () => {
      const ws = await h.runtime.manager.create({ ownerUserId: h.owner.userId, name: 'chain' });
      const events = record(ws);
      for (let i = 1; i <= MAX_WATCH_CHAIN; i++) h.llm.enqueue({ text: `noted ${i}` });
      const before = h.llm.requests.length;
      for (let i = 1; i <= MAX_WATCH_CHAIN + 1; i++)
        await ws.send(`[Watch "w" — poll #${i}/100] result ${i}`, { origin: 'watch' });
      const held = await turnEnd(events, MAX_WATCH_CHAIN + 1);
      assert.equal(held.text, WATCH_HELD_NOTE);
      assert.equal(h.llm.requests.length - before, MAX_WATCH_CHAIN, 'no model call for the held result');
      assert.ok(ofType(events, 'turn-start').every((event) => event.origin === 'watch'));
      h.llm.enqueue({ text: 'I saw result 6.' });
      await ws.send('anything new?');
      await turnEnd(events, MAX_WATCH_CHAIN + 2);
      assert.match(JSON.stringify(h.llm.requests.at(-1)?.body), /result 6/);
    });
  });
}

for (const vendor of VENDORS) {
  describe(`agent plan, unattended (${vendor})`, () => {
    let h: AgentHarness;
    before(async () => {
      h = await startHarness(vendor, { agent: { auto_approve: true } });
    });
    after(async () => {
      await h.close();
    });

    it('never waits for a review, coaches a bad first answer once, and marks a still-bad plan', async () => {
      h.llm.enqueue(
        { toolCalls: [{ name: 'plan', arguments: JSON.stringify({ prompt: 'do the thing' }) }] },
        { text: 'Sure, do the thing.' },
        { text: 'nope' },
        { text: 'Proceeding.' },
      );
      const ws = await h.runtime.manager.create({ ownerUserId: h.owner.userId, name: 'unattended' });
      const events = record(ws);
      await ws.send('plan');
      assert.equal((await turnEnd(events)).text, 'Proceeding.');
      assert.equal(ofType(events, 'plan-review').length, 0);
      assert.equal(ofType(events, 'approval-request').length, 0);
      const coached = requestFacts(vendor, h.llm.requests.at(-2));
      assert.match(coached.body, /Sure, do the thing\./, 'the retry runs on the same transcript');
      assert.match(coached.body, /not a usable plan yet/);
      const result = toolIdsOf(vendor, h.llm.requests.at(-1)?.body).resultTexts.at(-1) ?? '';
      assert.ok(result.startsWith('[Warning: plan may be incomplete'));
      assert.match(result, /Accepted without review/);
    });
  });
}
