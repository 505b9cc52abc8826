/** Benchmark of the agent loop: per-turn overhead of a 10-tool-call turn against a zero-latency fake model, memory per idle workstream, and the sandbox's cost per bash call. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import type { AgentEvent } from '../src/agent/events.js';
import type { ModelRequest, ModelStreamPart } from '../src/agent/providers/model-provider.js';
import type { ToolSource } from '../src/agent/tools/tool.js';
import { loadConfig } from '../src/config/index.js';
import { createAgentRuntime } from '../src/main-agent.js';
import { createSilentLogger } from '../src/shared/logger.js';
import { FakeModelProvider } from '../test/fakes/fake-model-provider.js';
import { createTestStores } from '../test/helpers/test-stores.js';
import { benchSandboxCost } from './sandbox-cost.js';
import { benchMemoryInjection } from './memory-injection.js';

const TURNS = 50;
const CALLS_PER_TURN = 10;
const IDLE_WORKSTREAMS = 1000;

const noopTool: ToolSource = {
  listTools: () =>
    Promise.resolve([
      {
        name: 'noop',
        description: 'Does nothing.',
        parameters: { type: 'object', properties: {} },
        agent: false,
        taskAgent: false,
        autoApprove: true,
      },
    ]),
  hasTool: (name) => name === 'noop',
  prepare: () => Promise.resolve({ header: '⚙ noop', preview: '', needsApproval: false, approvalLabel: 'noop' }),
  callTool: () => Promise.resolve({ output: 'ok', isError: false }),
};

function script(request: ModelRequest): ModelStreamPart[] {
  const last = request.messages.at(-1);
  if (last?.role === 'tool')
    return [
      { type: 'text-delta', text: 'done' },
      { type: 'finish', finishReason: 'stop' },
    ];
  const calls = Array.from({ length: CALLS_PER_TURN }, (_, i) => ({
    type: 'tool-call' as const,
    call: { id: `c${i}`, name: 'noop', arguments: '{}' },
  }));
  return [...calls, { type: 'finish', finishReason: 'tool-calls' }];
}

function gc(): void {
  setFlagsFromString('--expose-gc');
  (runInNewContext('gc') as () => void)();
}

function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'sandpiper-bench-'));
  const db = await createTestStores();
  const config = loadConfig({
    cwd: dir,
    env: {},
    flags: {
      'gateway.data_dir': dir,
      models: { main: { provider: 'openai', model: 'fake' } },
      'agent.max_active_workstreams': 5000,
    },
  });
  const provider = new FakeModelProvider(undefined, script);
  const runtime = await createAgentRuntime(config, db.stores, createSilentLogger(), {
    evictIntervalMs: 0,
    providers: { main: provider },
    builtinTools: noopTool,
    streamModel: (p, request, options) => p.stream(request, options),
  });
  const owner = await db.stores.users.createUser('bench');
  const ws = await runtime.manager.create({ ownerUserId: owner.userId, name: 'bench' });
  let resolveEnd: (() => void) | undefined;
  ws.subscribe((event: AgentEvent) => {
    if (event.type === 'turn-end') resolveEnd?.();
  });
  const durations: number[] = [];
  for (let i = 0; i < TURNS + 5; i++) {
    const ended = new Promise<void>((resolve) => (resolveEnd = resolve));
    const start = performance.now();
    await ws.send(`turn ${i}`);
    await ended;
    if (i >= 5) durations.push(performance.now() - start);
  }
  durations.sort((a, b) => a - b);
  const mean = durations.reduce((sum, value) => sum + value, 0) / durations.length;
  console.log(`turn with ${CALLS_PER_TURN} tool calls (SQLite persistence included), ${TURNS} turns:`);
  console.log(
    `  mean ${mean.toFixed(2)} ms  p50 ${percentile(durations, 50).toFixed(2)} ms  p95 ${percentile(durations, 95).toFixed(2)} ms`,
  );

  gc();
  const before = process.memoryUsage().heapUsed;
  for (let i = 0; i < IDLE_WORKSTREAMS; i++)
    await runtime.manager.create({ ownerUserId: owner.userId, name: `idle-${i}` });
  gc();
  const after = process.memoryUsage().heapUsed;
  console.log(
    `memory per idle workstream: ${((after - before) / IDLE_WORKSTREAMS / 1024).toFixed(2)} KiB (${IDLE_WORKSTREAMS} workstreams, heap delta ${((after - before) / 1024 / 1024).toFixed(2)} MiB)`,
  );
  console.log(`active workstreams: ${runtime.manager.stats().active}`);
  await runtime.close();
  await db.close();
  rmSync(dir, { recursive: true, force: true });
}

await main();
await benchSandboxCost();
await benchMemoryInjection();
