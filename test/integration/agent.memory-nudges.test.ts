/**
 * Memory nudges on the request bodies (real OpenAI client, fake LLM, SQLite): a nudge follows a correction, a denied
 * tool call, a resumed conversation and a wrap-up, on that one model call only, and never on ordinary turns; each kind
 * then waits its cooldown.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { NUDGE_TEXT } from '../../src/agent/memory/memory-nudges.js';
import type { Workstream } from '../../src/agent/workstream-api.js';
import { createStores } from '../../src/storage/index.js';
import { createKnex } from '../../src/storage/db.js';
import { startFakeLlmServer, type FakeLlmServer } from '../fakes/fake-llm-server.js';
import { ofType, record, startHarness, turnEnd, waitFor, type AgentHarness } from './agent.harness.js';

function systemOf(body: unknown): string {
  const first = (body as { messages: Array<{ content: unknown }> }).messages[0];
  return typeof first?.content === 'string' ? first.content : '';
}

/** The nudge kinds each request carried, in request order ('' for none). */
function nudgesOf(bodies: readonly unknown[]): string[] {
  return bodies.map((body) => {
    const system = systemOf(body);
    return Object.entries(NUDGE_TEXT).find(([, text]) => system.includes(text))?.[0] ?? '';
  });
}

describe('memory nudges on the request body', () => {
  let llm: FakeLlmServer;
  let h: AgentHarness;

  before(async () => {
    llm = await startFakeLlmServer();
    h = await startHarness('openai', {}, llm);
  });

  after(async () => {
    await h.close();
  });

  /** Sends `text` and returns the nudges of the model calls of that turn. */
  async function say(
    ws: Workstream,
    text: string,
    turn: number,
    ...script: Parameters<FakeLlmServer['enqueue']>
  ): Promise<string[]> {
    const events = record(ws);
    const start = llm.requests.length;
    llm.enqueue(...(script.length === 0 ? [{ text: 'ok' }] : script));
    await ws.send(text);
    await turnEnd(events, turn);
    return nudgesOf(llm.requests.slice(start).map((request) => request.body));
  }

  it('a correction and a wrap-up nudge their next call only; ordinary messages and a repeat within the cooldown do not', async () => {
    const ws = await h.runtime.manager.create({ ownerUserId: h.owner.userId, name: 'talk' });
    assert.deepEqual(await say(ws, 'No, I said the blue one', 1), [''], 'a first message is never nudged');
    assert.deepEqual(await say(ws, 'what time is it?', 1), ['']);
    assert.deepEqual(
      await say(
        ws,
        "No, that's not what I asked",
        1,
        { toolCalls: [{ name: 'read_file', arguments: '{"path":"notes.txt"}' }] },
        { text: 'ok' },
      ),
      ['correction', ''],
      'the call after the tool result carries no nudge',
    );
    assert.deepEqual(
      await say(ws, 'Actually, use the red one', 1),
      [''],
      'the correction nudge waits for its cooldown',
    );
    assert.deepEqual(await say(ws, 'Thanks, that works', 1), ['completion']);
    assert.deepEqual(await say(ws, 'one more question', 1), ['']);
  });

  it('a denied tool call nudges the call that gets the denial', async () => {
    const ws = await h.runtime.manager.create({ ownerUserId: h.owner.userId, name: 'deny' });
    await say(ws, 'hello', 1);
    const events = record(ws);
    const start = llm.requests.length;
    llm.enqueue({ toolCalls: [{ name: 'bash', arguments: '{"command":"rm -rf build"}' }] }, { text: 'understood' });
    await ws.send('clean the build');
    const request = await waitFor(() => ofType(events, 'approval-request')[0], 'approval-request');
    await h.runtime.manager.resolveApproval(request.approvalId, { approved: false, decidedBy: h.owner.userId });
    await turnEnd(events);
    assert.deepEqual(nudgesOf(llm.requests.slice(start).map((r) => r.body)), ['', 'denial']);
  });

  it('a conversation resumed by a new process with memories in scope is nudged to search them, once', async () => {
    const ws = await h.runtime.manager.create({ ownerUserId: h.owner.userId, name: 'resume' });
    assert.deepEqual(await say(ws, 'remember my editor', 1), ['']);
    await h.db.stores.memories.create({
      name: 'editor',
      description: 'preferred editor',
      type: 'user',
      scope: 'user',
      scopeId: h.owner.userId,
      content: 'vim',
    });
    await h.stopRuntime();
    await h.db.knex.destroy();
    const knex = createKnex(h.db.url);
    const second = await startHarness(
      'openai',
      { db: { ...h.db, knex, stores: createStores(knex), close: () => knex.destroy() }, dataDir: h.dataDir },
      llm,
    );
    h = {
      ...second,
      close: async () => {
        await second.stopRuntime();
        await knex.destroy();
        await llm.close();
      },
    };
    const restored = await second.runtime.manager.get(ws.wsId);
    assert.ok(restored);
    assert.deepEqual(await say(restored, 'where were we?', 1), ['resume']);
    assert.deepEqual(await say(restored, 'and then?', 1), ['']);
  });
});
