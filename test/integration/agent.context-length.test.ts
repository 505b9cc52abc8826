/** A context-length rejection from the real SDKs makes the agent compact the history once and retry, on both providers. */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { contentText } from '../../src/agent/messages.js';
import { ofType, record, startHarness, turnEnd, VENDORS, type AgentHarness } from './agent.harness.js';

const OVERFLOW = {
  openai: {
    status: 400,
    errorCode: 'context_length_exceeded',
    errorParam: 'messages',
    errorMessage: "This model's maximum context length is 8192 tokens.",
  },
  anthropic: { status: 400, errorMessage: 'prompt is too long: 9000 tokens > 8192 maximum' },
} as const;

for (const vendor of VENDORS) {
  describe(`agent context-length recovery (${vendor})`, () => {
    let h: AgentHarness;
    before(async () => {
      h = await startHarness(vendor);
    });
    after(async () => {
      await h.close();
    });

    it('compacts the earlier turns after a context-length error and answers', async () => {
      const ws = await h.runtime.manager.create({ ownerUserId: h.owner.userId, name: 'overflow' });
      const events = record(ws);
      h.llm.enqueue({ text: 'EARLY-ANSWER' });
      await ws.send('early question');
      await turnEnd(events, 1);
      const before = h.llm.requests.length;
      h.llm.enqueue(OVERFLOW[vendor], { text: 'SHORT-SUMMARY' }, { text: 'answer after compaction' });
      await ws.send('late question');
      const end = await turnEnd(events, 2);
      assert.equal(end.reason, 'done');
      assert.equal(end.text, 'answer after compaction');
      assert.equal(ofType(events, 'error').length, 0);
      assert.equal(h.llm.requests.length - before, 3);
      const summaryBody = JSON.stringify(h.llm.requests[before + 1]?.body);
      assert.match(summaryBody, /early question/);
      assert.doesNotMatch(summaryBody, /"tools"/);
      const finalBody = JSON.stringify(h.llm.requests[before + 2]?.body);
      assert.match(finalBody, /SHORT-SUMMARY/);
      assert.match(finalBody, /late question/);
      assert.doesNotMatch(finalBody, /EARLY-ANSWER/);
      const stored = await h.db.stores.conversations.load(ws.wsId);
      assert.deepEqual(
        stored.map((message) => contentText(message.content)),
        ['[Conversation summary]', 'SHORT-SUMMARY', 'late question', 'answer after compaction'],
      );
    });

    it('ends the turn with a user-safe error when compaction cannot help', async () => {
      const ws = await h.runtime.manager.create({ ownerUserId: h.owner.userId, name: 'overflow-first' });
      const events = record(ws);
      h.llm.enqueue(OVERFLOW[vendor]);
      await ws.send('a first message that is already too long');
      const end = await turnEnd(events);
      assert.equal(end.reason, 'error');
      assert.equal(ofType(events, 'turn-end').length, 1);
      const message = ofType(events, 'error')[0]?.message ?? '';
      assert.match(message, /context window/);
      assert.doesNotMatch(message, /9000|8192|maximum/);
    });
  });
}
