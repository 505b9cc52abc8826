/** Garbled model output through the real SDKs: nameless calls, non-string names, huge arguments, empty answers all end the turn cleanly. */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { AgentEvent } from '../../src/agent/events.js';
import type { Workstream } from '../../src/agent/workstream-api.js';
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

/** Waits for the turn's end, then for the queue to go quiet, and checks there was exactly one turn-end. */
async function onlyTurnEnd(
  h: AgentHarness,
  ws: Workstream,
  events: AgentEvent[],
): Promise<Extract<AgentEvent, { type: 'turn-end' }>> {
  const end = await turnEnd(events);
  await waitFor(async () => (await ws.info()).state === 'idle', 'idle state');
  await waitFor(() => h.llm.pending === 0, 'scripts consumed');
  assert.equal(ofType(events, 'turn-end').length, 1);
  assert.equal(ofType(events, 'turn-start').length, 1);
  return end;
}

function toolNamesOf(body: unknown): string[] {
  const text = JSON.stringify(body);
  return [...text.matchAll(/"name":"([^"]*)"/g)].map((match) => match[1] ?? '');
}

for (const vendor of VENDORS) {
  describe(`agent bad model output (${vendor})`, () => {
    let h: AgentHarness;
    before(async () => {
      h = await startHarness(vendor, { agent: { auto_approve_tools: ['bash'] } });
    });
    after(async () => {
      await h.close();
    });

    it('answers a call with an empty tool name with an error and keeps the history valid', async () => {
      h.llm.enqueue(
        { toolCalls: [{ id: 'call_empty', name: '', arguments: '{"command":"echo nope"}' }] },
        { text: 'sorry' },
      );
      const ws = await h.runtime.manager.create({ ownerUserId: h.owner.userId, name: 'empty-name' });
      const events = record(ws);
      await ws.send('go');
      const end = await onlyTurnEnd(h, ws, events);
      assert.equal(end.reason, 'done');
      assert.equal(end.text, 'sorry');
      assert.equal(ofType(events, 'approval-request').length, 0);
      const result = ofType(events, 'tool-result')[0];
      assert.equal(result?.isError, true);
      assert.match(result?.output ?? '', /no tool name/);
      const body = h.llm.requests.at(-1)?.body;
      const ids = toolIdsOf(vendor, body);
      assert.deepEqual(ids.results, ['call_empty']);
      assert.ok(!toolNamesOf(body).includes(''), 'no empty tool name is sent back to the provider');
    });

    it('answers a call whose name is not a string', async () => {
      h.llm.enqueue(
        { toolCalls: [{ id: 'call_num', name: 123 as unknown as string, arguments: '{}' }] },
        { text: 'ok' },
      );
      const ws = await h.runtime.manager.create({ ownerUserId: h.owner.userId, name: 'number-name' });
      const events = record(ws);
      await ws.send('go');
      const end = await onlyTurnEnd(h, ws, events);
      assert.equal(end.reason, 'done');
      assert.equal(end.text, 'ok');
      assert.equal(ofType(events, 'tool-result')[0]?.isError, true);
      assert.deepEqual(toolIdsOf(vendor, h.llm.requests.at(-1)?.body).results, ['call_num']);
    });

    it('refuses 2 MB of arguments without running the tool and does not send them again', async () => {
      const huge = JSON.stringify({ command: `echo ${'x'.repeat(2 * 1024 * 1024)}` });
      h.llm.enqueue({ toolCalls: [{ id: 'call_huge', name: 'bash', arguments: huge }] }, { text: 'will split' });
      const ws = await h.runtime.manager.create({ ownerUserId: h.owner.userId, name: 'huge' });
      const events = record(ws);
      await ws.send('go');
      const end = await onlyTurnEnd(h, ws, events);
      assert.equal(end.reason, 'done');
      assert.equal(end.text, 'will split');
      assert.equal(ofType(events, 'tool-output-chunk').length, 0);
      const result = ofType(events, 'tool-result')[0];
      assert.equal(result?.isError, true);
      assert.match(result?.output ?? '', /too large/);
      const body = h.llm.requests.at(-1)?.body;
      assert.ok(JSON.stringify(body).length < 100_000, 'the huge arguments are not re-sent');
      assert.deepEqual(toolIdsOf(vendor, body).results, ['call_huge']);
      const stored = await h.db.stores.conversations.load(ws.wsId);
      assert.ok(JSON.stringify(stored).length < 100_000, 'the huge arguments are not stored');
    });

    it('ends the turn when the model returns neither text nor tool calls, and the next turn works', async () => {
      h.llm.enqueue({});
      const ws = await h.runtime.manager.create({ ownerUserId: h.owner.userId, name: 'empty' });
      const events = record(ws);
      await ws.send('say nothing');
      const end = await onlyTurnEnd(h, ws, events);
      assert.equal(end.reason, 'done');
      assert.equal(end.text, '');
      assert.equal(ofType(events, 'error').length, 0);
      h.llm.enqueue({ text: 'second try' });
      await ws.send('again');
      const second = await turnEnd(events, 2);
      assert.equal(second.text, 'second try');
      assert.equal(ofType(events, 'turn-end').length, 2);
    });
  });
}
