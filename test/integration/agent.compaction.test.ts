/** Compaction: a history that outgrows the context window is summarized instead of failing. */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { contentText } from '../../src/agent/messages.js';
import type { ToolSource } from '../../src/agent/tools/tool.js';
import { loadConfig } from '../../src/config/index.js';
import { createAgentRuntime } from '../../src/main-agent.js';
import { ProviderError } from '../../src/shared/errors.js';
import { createSilentLogger } from '../../src/shared/logger.js';
import { FakeModelProvider, textParts } from '../fakes/fake-model-provider.js';
import { createTestStores } from '../helpers/test-stores.js';
import { record, turnEnd } from './agent.harness.js';

const noTools: ToolSource = {
  listTools: () => Promise.resolve([]),
  hasTool: () => false,
  prepare: () => Promise.reject(new Error('no tools')),
  callTool: () => Promise.reject(new Error('no tools')),
};

async function setup(contextWindow: number) {
  const dir = mkdtempSync(join(tmpdir(), 'sandpiper-compact-'));
  const db = await createTestStores();
  const config = loadConfig({
    cwd: dir,
    env: {},
    flags: {
      'gateway.data_dir': dir,
      models: { main: { provider: 'openai', model: 'fake', context_window: contextWindow } },
    },
  });
  const provider = new FakeModelProvider();
  const runtime = await createAgentRuntime(config, db.stores, createSilentLogger(), {
    evictIntervalMs: 0,
    providers: { main: provider },
    builtinTools: noTools,
    streamModel: (p, request, options) => p.stream(request, options),
  });
  const owner = await db.stores.users.createUser('alice');
  const ws = await runtime.manager.create({ ownerUserId: owner.userId, name: 'compact' });
  const close = async (): Promise<void> => {
    await runtime.close();
    await db.close();
    rmSync(dir, { recursive: true, force: true });
  };
  return { provider, ws, db, close };
}

describe('agent compaction', () => {
  it('summarizes older turns before a call that would overflow the context window', async () => {
    const { provider, ws, db, close } = await setup(2000);
    try {
      const events = record(ws);
      provider.enqueue({ parts: textParts('A'.repeat(3000)) }, { parts: textParts('B'.repeat(3000)) });
      await ws.send('first question');
      await turnEnd(events, 1);
      await ws.send('second question');
      await turnEnd(events, 2);
      provider.enqueue({ parts: textParts('SUMMARY-OF-EARLIER') }, { parts: textParts('third answer') });
      await ws.send('third question');
      const end = await turnEnd(events, 3);
      assert.equal(end.text, 'third answer');
      assert.equal(provider.requests.length, 4);
      const summaryCall = provider.requests[2];
      assert.equal(summaryCall?.tools.length, 0);
      assert.match(contentText(summaryCall?.messages.at(-1)?.content ?? ''), /first question/);
      const finalCall = provider.requests[3];
      const texts = finalCall?.messages.map((m) => contentText(m.content)) ?? [];
      assert.ok(texts.includes('SUMMARY-OF-EARLIER'));
      assert.equal(texts.at(-1), 'third question');
      assert.ok(!texts.some((text) => text.startsWith('AAAA')));
      const stored = await db.stores.conversations.load(ws.wsId);
      assert.equal(contentText(stored[1]?.content ?? ''), 'SUMMARY-OF-EARLIER');
    } finally {
      await close();
    }
  });

  it('compacts once and retries when the provider reports a context-length error', async () => {
    const { provider, ws, close } = await setup(100_000);
    try {
      const events = record(ws);
      provider.enqueue({ parts: textParts('early answer') });
      await ws.send('early question');
      await turnEnd(events, 1);
      const overflow = new ProviderError('openai: HTTP 400 bad request', {
        status: 400,
        data: { contextLength: true },
      });
      provider.enqueue(
        { error: overflow },
        { parts: textParts('SHORT-SUMMARY') },
        { parts: textParts('answer after compaction') },
      );
      await ws.send('late question');
      const end = await turnEnd(events, 2);
      assert.equal(end.reason, 'done');
      assert.equal(end.text, 'answer after compaction');
      const texts = provider.requests.at(-1)?.messages.map((m) => contentText(m.content)) ?? [];
      assert.ok(texts.includes('SHORT-SUMMARY'));
      assert.equal(texts.at(-1), 'late question');
    } finally {
      await close();
    }
  });
});
