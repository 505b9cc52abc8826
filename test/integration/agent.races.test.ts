/** Races around cancel, eviction and approvals: what the user sees and what the history keeps stay consistent. */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, afterEach, before, describe, it } from 'node:test';
import { contentText } from '../../src/agent/messages.js';
import type { ToolContext, ToolResult } from '../../src/agent/tools/tool.js';
import type { TurnModel } from '../../src/agent/turn/turn-types.js';
import { createWorkstreamManager, type DefaultWorkstreamManager } from '../../src/agent/workstream-manager.js';
import { loadConfig } from '../../src/config/index.js';
import { createSilentLogger } from '../../src/shared/logger.js';
import { FakeModelProvider, textParts, toolCallParts } from '../fakes/fake-model-provider.js';
import { FakeToolSource, type FakeTool } from '../fakes/fake-turn-context.js';
import { createTestStores, type TestStores } from '../helpers/test-stores.js';
import { ofType, record, turnEnd, waitFor } from './agent.harness.js';

interface Setup {
  manager: DefaultWorkstreamManager;
  provider: FakeModelProvider;
  ownerId: string;
  close(): Promise<void>;
}

interface SetupOptions {
  agent?: Record<string, unknown>;
  tools?: FakeTool[];
  /** Model resolution (default: every alias resolves to the fake provider). */
  resolveModel?: (provider: FakeModelProvider) => (alias: string) => TurnModel | undefined;
}

async function setup(db: TestStores, options: SetupOptions = {}): Promise<Setup> {
  const dir = mkdtempSync(join(tmpdir(), 'sandpiper-races-'));
  const flags: Record<string, unknown> = {
    'gateway.data_dir': dir,
    models: { main: { provider: 'openai', model: 'fake' } },
  };
  for (const [key, value] of Object.entries(options.agent ?? {})) flags[`agent.${key}`] = value;
  const config = loadConfig({ cwd: dir, env: {}, flags });
  const provider = new FakeModelProvider();
  const model: TurnModel = { provider, model: 'fake', contextWindow: 100_000, maxTokens: 1000, supportsVision: false };
  const manager = createWorkstreamManager({
    agent: config.agent,
    stores: db.stores,
    resolveModel: options.resolveModel?.(provider) ?? (() => model),
    defaultModelAlias: 'main',
    toolSources: [new FakeToolSource(options.tools ?? [{ name: 'bash' }])],
    logger: createSilentLogger(),
    streamModel: (p, request, streamOptions) => p.stream(request, streamOptions),
  });
  const owner = (await db.stores.users.getUserByUsername('alice')) ?? (await db.stores.users.createUser('alice'));
  return {
    manager,
    provider,
    ownerId: owner.userId,
    close: async () => {
      await manager.shutdown();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** A tool that only finishes when its call is aborted. */
function untilAborted(context: ToolContext): Promise<ToolResult> {
  return new Promise((_, reject) => {
    const onAbort = (): void => reject(context.signal.reason as Error);
    if (context.signal.aborted) onAbort();
    else context.signal.addEventListener('abort', onAbort, { once: true });
  });
}

describe('agent races', () => {
  let db: TestStores;
  let current: Setup | undefined;
  before(async () => {
    db = await createTestStores();
  });
  afterEach(async () => {
    await current?.close();
    current = undefined;
  });
  after(async () => {
    await db.close();
  });

  it('keeps the real result of a tool that finished before the turn was cancelled', async () => {
    current = await setup(db, {
      agent: { auto_approve: true },
      tools: [
        { name: 'quick', run: () => Promise.resolve({ output: 'quick done', isError: false }) },
        { name: 'slow', run: (_args, context) => untilAborted(context) },
      ],
    });
    const { manager, provider, ownerId } = current;
    provider.enqueue({
      parts: toolCallParts([
        { id: 'c_quick', name: 'quick', args: {} },
        { id: 'c_slow', name: 'slow', args: {} },
      ]),
    });
    const ws = await manager.create({ ownerUserId: ownerId, name: 'cancel-mid-batch' });
    const events = record(ws);
    await ws.send('go');
    await waitFor(() => ofType(events, 'tool-result').some((event) => event.callId === 'c_quick'), 'quick result');
    ws.cancel();
    assert.equal((await turnEnd(events)).reason, 'cancelled');
    const stored = await db.stores.conversations.load(ws.wsId);
    const results = stored.filter((message) => message.role === 'tool');
    assert.deepEqual(
      results.map((message) => [message.toolCallId, contentText(message.content)]),
      [
        ['c_quick', 'quick done'],
        ['c_slow', 'Cancelled by user'],
      ],
    );
  });

  it('tells subscribers that a pending approval was cancelled with the turn', async () => {
    current = await setup(db);
    const { manager, provider, ownerId } = current;
    provider.enqueue({ parts: toolCallParts([{ id: 'c_wait', name: 'bash', args: { command: 'true' } }]) });
    const ws = await manager.create({ ownerUserId: ownerId, name: 'cancel-approval' });
    const events = record(ws);
    await ws.send('go');
    const request = await waitFor(() => ofType(events, 'approval-request')[0], 'approval-request');
    ws.cancel();
    await turnEnd(events);
    const resolved = ofType(events, 'approval-resolved');
    assert.equal(resolved.length, 1);
    assert.equal(resolved[0]?.approvalId, request.approvalId);
    assert.equal(resolved[0]?.approved, false);
    const resolvedAt = events.indexOf(resolved[0] as (typeof events)[number]);
    assert.ok(
      resolvedAt < events.findIndex((event) => event.type === 'turn-end'),
      'approval-resolved comes before turn-end',
    );
  });

  it('keeps one live object per workstream when a message reaches an object evicted after get()', async () => {
    current = await setup(db, { agent: { max_active_workstreams: 1 } });
    const { manager, provider, ownerId } = current;
    const first = await manager.create({ ownerUserId: ownerId, name: 'first' });
    // A second thread's workstream pushes the (idle) first one out while a caller still holds it.
    await manager.create({ ownerUserId: ownerId, name: 'second' });
    const events = record(first);
    provider.enqueue({ parts: textParts('hello') });
    await first.send('hi');
    assert.equal(await manager.get(first.wsId), first, 'get() returns the object that runs the turn');
    assert.equal((await turnEnd(events)).text, 'hello');
  });

  it('does not crash the process when a restored approval is cancelled before its turn could start', async () => {
    const rejections: unknown[] = [];
    const onRejection = (reason: unknown): void => {
      rejections.push(reason);
    };
    process.on('unhandledRejection', onRejection);
    try {
      // First life: the approval row is written, then the process "stops".
      const first = await setup(db);
      first.provider.enqueue({ parts: toolCallParts([{ id: 'c_r', name: 'bash', args: { command: 'true' } }]) });
      const ws = await first.manager.create({ ownerUserId: first.ownerId, name: 'restored' });
      const events = record(ws);
      await ws.send('go');
      await waitFor(() => ofType(events, 'approval-request')[0], 'approval-request');
      await first.close();
      // Second life without any usable model: the restored turn cannot start.
      current = await setup(db, { resolveModel: () => () => undefined });
      const restored = await current.manager.get(ws.wsId);
      assert.ok(restored);
      assert.equal(await current.manager.close(ws.wsId, 'closed by user'), true);
      // An unhandled rejection is reported once the microtask queue drains; two macrotask turns are plenty.
      for (let turn = 0; turn < 2; turn++) await new Promise((resolve) => setImmediate(resolve));
      assert.deepEqual(rejections, []);
    } finally {
      process.off('unhandledRejection', onRejection);
    }
  });
});
