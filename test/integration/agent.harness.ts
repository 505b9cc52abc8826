/** Shared setup for the agent integration tests: fake LLM server, migrated SQLite stores, real providers, the runtime. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AgentEvent } from '../../src/agent/events.js';
import type { ToolSource } from '../../src/agent/tools/tool.js';
import type { Workstream } from '../../src/agent/workstream-api.js';
import { loadConfig, type Config } from '../../src/config/index.js';
import { createAgentRuntime, type AgentRuntime } from '../../src/main-agent.js';
import { createSilentLogger } from '../../src/shared/logger.js';
import type { User } from '../../src/storage/user-store.js';
import { startFakeLlmServer, type FakeLlmServer } from '../fakes/fake-llm-server.js';
import { createTestStores, type TestStores } from '../helpers/test-stores.js';
import { waitFor } from '../helpers/wait-for.js';

export type Vendor = 'openai' | 'anthropic';
export const VENDORS: readonly Vendor[] = ['openai', 'anthropic'];

export interface HarnessOptions {
  agent?: Record<string, unknown>;
  contextWindow?: number;
  /** Reuse an existing database and data directory (restart tests). */
  db?: TestStores;
  dataDir?: string;
  toolSources?: ToolSource[];
  /** Replaces the built-in tool source (e.g. one whose web_fetch may reach the test's local server). */
  builtinTools?: ToolSource;
  /** Pauses between notify attempts (default 1 s, 3 s). */
  notifyRetryDelaysMs?: readonly number[];
  /** Config flags beyond `agent.*` (e.g. `auth.jwt_secret`). */
  flags?: Record<string, unknown>;
}

export interface AgentHarness {
  vendor: Vendor;
  llm: FakeLlmServer;
  db: TestStores;
  dataDir: string;
  config: Config;
  runtime: AgentRuntime;
  owner: User;
  /** Stops the runtime only (the database and the fake stay up). */
  stopRuntime(): Promise<void>;
  close(): Promise<void>;
}

export function buildConfig(vendor: Vendor, llm: FakeLlmServer, dataDir: string, options: HarnessOptions): Config {
  const model: Record<string, unknown> = {
    provider: vendor,
    base_url: vendor === 'openai' ? llm.url : llm.origin,
    api_key: 'sk-test',
    model: 'fake-model',
  };
  if (options.contextWindow !== undefined) model['context_window'] = options.contextWindow;
  const flags: Record<string, unknown> = { 'gateway.data_dir': dataDir, models: { main: model } };
  for (const [key, value] of Object.entries(options.agent ?? {})) flags[`agent.${key}`] = value;
  Object.assign(flags, options.flags ?? {});
  return loadConfig({ cwd: dataDir, env: {}, flags });
}

export async function startHarness(
  vendor: Vendor,
  options: HarnessOptions = {},
  llmServer?: FakeLlmServer,
): Promise<AgentHarness> {
  const llm = llmServer ?? (await startFakeLlmServer());
  const db = options.db ?? (await createTestStores());
  const dataDir = options.dataDir ?? mkdtempSync(join(tmpdir(), 'sandpiper-agent-'));
  const config = buildConfig(vendor, llm, dataDir, options);
  const runtime = await createAgentRuntime(config, db.stores, createSilentLogger(), {
    evictIntervalMs: 0,
    toolSources: options.toolSources ?? [],
    ...(options.builtinTools === undefined ? {} : { builtinTools: options.builtinTools }),
    ...(options.notifyRetryDelaysMs === undefined ? {} : { notifyRetryDelaysMs: options.notifyRetryDelaysMs }),
  });
  const owner = (await db.stores.users.getUserByUsername('alice')) ?? (await db.stores.users.createUser('alice'));
  let stopped = false;
  const stopRuntime = async (): Promise<void> => {
    if (stopped) return;
    stopped = true;
    await runtime.close();
  };
  return {
    vendor,
    llm,
    db,
    dataDir,
    config,
    runtime,
    owner,
    stopRuntime,
    close: async () => {
      await stopRuntime();
      await llm.close();
      await db.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** Collects a workstream's events. */
export function record(ws: Workstream): AgentEvent[] {
  const events: AgentEvent[] = [];
  ws.subscribe((event) => {
    events.push(event);
  });
  return events;
}

export { waitFor };

export function ofType<T extends AgentEvent['type']>(
  events: readonly AgentEvent[],
  type: T,
): Array<Extract<AgentEvent, { type: T }>> {
  return events.filter((event): event is Extract<AgentEvent, { type: T }> => event.type === type);
}

/** Waits for the n-th turn-end. */
export function turnEnd(events: readonly AgentEvent[], n = 1): Promise<Extract<AgentEvent, { type: 'turn-end' }>> {
  return waitFor(() => ofType(events, 'turn-end')[n - 1], `turn-end #${n}`);
}

/** Messages of a recorded request body, vendor-neutral enough for assertions: tool call ids and tool result ids. */
export function toolIdsOf(
  vendor: Vendor,
  body: unknown,
): { calls: string[]; results: string[]; resultTexts: string[] } {
  const calls: string[] = [];
  const results: string[] = [];
  const resultTexts: string[] = [];
  const messages = (body as { messages?: Array<Record<string, unknown>> }).messages ?? [];
  for (const message of messages) {
    if (vendor === 'openai') {
      for (const call of (message['tool_calls'] as Array<{ id: string }> | undefined) ?? []) calls.push(call.id);
      if (message['role'] === 'tool') {
        results.push(String(message['tool_call_id']));
        resultTexts.push(
          typeof message['content'] === 'string' ? message['content'] : JSON.stringify(message['content']),
        );
      }
      continue;
    }
    const content = Array.isArray(message['content']) ? (message['content'] as Array<Record<string, unknown>>) : [];
    for (const block of content) {
      if (block['type'] === 'tool_use') calls.push(String(block['id']));
      if (block['type'] === 'tool_result') {
        results.push(String(block['tool_use_id']));
        resultTexts.push(typeof block['content'] === 'string' ? block['content'] : JSON.stringify(block['content']));
      }
    }
  }
  return { calls, results, resultTexts };
}
