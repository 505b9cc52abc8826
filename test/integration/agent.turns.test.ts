/** Agent turn loop through the real SDK clients: parallel calls, argument repair, retries, queueing, step limit. */
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
  describe(`agent turns (${vendor})`, () => {
    let h: AgentHarness;
    before(async () => {
      h = await startHarness(vendor, { agent: { auto_approve_tools: ['bash'] } });
    });
    after(async () => {
      await h.close();
    });

    it('runs parallel tool calls and returns results in call order', async () => {
      h.llm.enqueue(
        {
          toolCalls: [
            { id: 'call_a', name: 'bash', arguments: '{"command":"sleep 0.3; echo first"}' },
            { id: 'call_b', name: 'bash', arguments: '{"command":"echo second"}' },
          ],
        },
        { text: 'both done' },
      );
      const ws = await h.runtime.manager.create({ ownerUserId: h.owner.userId, name: 'parallel' });
      const events = record(ws);
      await ws.send('two things');
      const end = await turnEnd(events);
      assert.equal(end.text, 'both done');
      assert.equal(ofType(events, 'approval-request').length, 0);
      assert.deepEqual(
        ofType(events, 'tool-calls')[0]?.items.map((item) => item.callId),
        ['call_a', 'call_b'],
      );
      const ids = toolIdsOf(vendor, h.llm.requests.at(-1)?.body);
      assert.deepEqual(ids.results, ['call_a', 'call_b']);
      assert.match(ids.resultTexts[0] ?? '', /first/);
      assert.match(ids.resultTexts[1] ?? '', /second/);
    });

    it('repairs malformed arguments and reports unknown tools to the model', async () => {
      h.llm.enqueue(
        {
          toolCalls: [
            { id: 'call_m', name: 'bash', arguments: '{"command": "echo repaired",' },
            { id: 'call_u', name: 'no_such_tool', arguments: '{}' },
          ],
        },
        { text: 'noted' },
      );
      const ws = await h.runtime.manager.create({ ownerUserId: h.owner.userId, name: 'malformed' });
      const events = record(ws);
      await ws.send('go');
      await turnEnd(events);
      const ids = toolIdsOf(vendor, h.llm.requests.at(-1)?.body);
      assert.deepEqual(ids.results, ['call_m', 'call_u']);
      assert.match(ids.resultTexts[0] ?? '', /repaired/);
      assert.match(ids.resultTexts[1] ?? '', /unknown tool "no_such_tool"/);
      const items = ofType(events, 'tool-calls')[0]?.items ?? [];
      assert.ok(items[1]?.error);
    });

    it('reports arguments that cannot be repaired to the model without running or asking', async () => {
      h.llm.enqueue(
        { toolCalls: [{ id: 'call_arr', name: 'bash', arguments: '[1, 2]' }] },
        { text: 'I will fix the call' },
      );
      const ws = await h.runtime.manager.create({ ownerUserId: h.owner.userId, name: 'unrepairable' });
      const events = record(ws);
      await ws.send('go');
      const end = await turnEnd(events);
      assert.equal(end.text, 'I will fix the call');
      assert.equal(ofType(events, 'approval-request').length, 0);
      assert.equal(ofType(events, 'tool-output-chunk').length, 0);
      const ids = toolIdsOf(vendor, h.llm.requests.at(-1)?.body);
      assert.deepEqual(ids.results, ['call_arr']);
      assert.match(ids.resultTexts[0] ?? '', /JSON parse error: arguments must be a JSON object/);
    });

    it('retries a 429 and then answers', async () => {
      h.llm.enqueue({ status: 429, retryAfterMs: 10 }, { text: 'after retry' });
      const ws = await h.runtime.manager.create({ ownerUserId: h.owner.userId, name: 'retry' });
      const events = record(ws);
      await ws.send('hi');
      const end = await turnEnd(events);
      assert.equal(end.reason, 'done');
      assert.equal(end.text, 'after retry');
      assert.equal(ofType(events, 'error').length, 0);
    });

    it('reports a user-safe error when the model keeps failing', async () => {
      h.llm.enqueue({ status: 401, errorMessage: 'secret-key-text' });
      const ws = await h.runtime.manager.create({ ownerUserId: h.owner.userId, name: 'fail' });
      const events = record(ws);
      await ws.send('hi');
      const end = await turnEnd(events);
      assert.equal(end.reason, 'error');
      const error = ofType(events, 'error')[0];
      assert.match(error?.message ?? '', /HTTP 401/);
      assert.doesNotMatch(error?.message ?? '', /secret-key-text/);
      assert.equal((await ws.info()).state, 'error');
    });

    it('queues a second message and runs it after the first turn', async () => {
      h.llm.enqueue({ text: ['one', ' two', ' three'], delayMs: 40 }, { text: 'second answer' });
      const ws = await h.runtime.manager.create({ ownerUserId: h.owner.userId, name: 'queue' });
      const events = record(ws);
      await ws.send('first');
      await ws.send('second');
      assert.equal((await ws.info()).queuedMessages, 1);
      await turnEnd(events, 2);
      const kinds = events.filter((e) => e.type === 'turn-start' || e.type === 'turn-end').map((e) => e.type);
      assert.deepEqual(kinds, ['turn-start', 'turn-end', 'turn-start', 'turn-end']);
      assert.deepEqual(
        ofType(events, 'turn-end').map((e) => e.text),
        ['one two three', 'second answer'],
      );
      assert.match(JSON.stringify(h.llm.requests.at(-1)?.body), /one two three/);
    });

    it('stops at agent.max_steps and says so in the answer', async () => {
      const limited = await startHarness(vendor, { agent: { auto_approve: true, max_steps: 2 } });
      try {
        limited.llm.enqueue(
          { toolCalls: [{ name: 'bash', arguments: '{"command":"echo 1"}' }] },
          { toolCalls: [{ name: 'bash', arguments: '{"command":"echo 2"}' }] },
        );
        const ws = await limited.runtime.manager.create({ ownerUserId: limited.owner.userId, name: 'steps' });
        const events = record(ws);
        await ws.send('loop');
        const end = await turnEnd(events);
        assert.equal(end.reason, 'done');
        assert.match(end.text, /agent\.max_steps/);
        assert.equal(limited.llm.requests.length, 2);
        await waitFor(() => limited.llm.pending === 0, 'scripts consumed');
      } finally {
        await limited.close();
      }
    });
  });
}
