/** Push-refresh debounce: immediate first refresh, coalesced bursts, no lost updates. */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createSilentLogger } from '../../shared/logger.js';
import { AsyncMutex } from './async-mutex.js';
import { CircuitBreaker } from './circuit-breaker.js';
import { EMPTY_CATALOG } from './mcp-catalog.js';
import type { McpConnection } from './mcp-connection.js';
import { createServerState, type ManagerContext } from './mcp-manager-context.js';
import { scheduleListRefresh } from './mcp-server-lifecycle.js';
import type { McpToolInfo } from './mcp-types.js';

/** A fake connection (the port, not the SDK) whose tool list the test changes. */
function fakeConnection(tools: () => McpToolInfo[], calls: { count: number }): McpConnection {
  const none = () => Promise.resolve([]);
  return {
    capabilities: {
      tools: true,
      resources: false,
      prompts: false,
      toolsListChanged: true,
      resourcesListChanged: false,
      promptsListChanged: false,
    },
    pid: undefined,
    listTools: () => {
      calls.count += 1;
      return Promise.resolve(tools());
    },
    listResources: none,
    listResourceTemplates: none,
    listPrompts: none,
    callTool: () => Promise.reject(new Error('unused')),
    readResource: none,
    getPrompt: none,
    close: () => Promise.resolve(),
  };
}

function contextWith(debounceMs: number, now: () => number): ManagerContext {
  return {
    settings: {
      logger: createSilentLogger(),
      parentEnv: {},
      clientVersion: 'test',
      connectTimeoutMs: 1000,
      listTimeoutMs: 1000,
      startWaitMs: 1000,
      debounceMs,
      elicitationTimeoutMs: 1000,
      now,
      promptTemplates: undefined,
    },
    servers: new Map(),
    breaker: new CircuitBreaker(),
    catalog: EMPTY_CATALOG,
    listeners: new Set(),
    elicitationHandler: undefined,
    tasks: new Set(),
    syncMutex: new AsyncMutex(),
    isShutdown: false,
  };
}

const tool = (name: string): McpToolInfo => ({ name, description: '', inputSchema: { type: 'object' } });

async function until(predicate: () => boolean): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!predicate()) {
    if (Date.now() > deadline) throw new Error('condition not reached');
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

describe('push refresh debounce', () => {
  it('refreshes at once, coalesces a burst into one trailing refresh, and never loses the last change', async () => {
    const context = contextWith(200, () => performance.now());
    const state = createServerState({
      name: 's',
      source: 'toml',
      transport: 'stdio',
      command: 'x',
      args: [],
      env: {},
      url: '',
      headers: {},
    });
    let tools = [tool('a')];
    const calls = { count: 0 };
    state.connection = fakeConnection(() => tools, calls);
    context.servers.set('s', state);

    scheduleListRefresh(context, state, 'tools');
    await until(() => calls.count === 1);
    assert.deepEqual(
      context.catalog.tools.map((entry) => entry.name),
      ['mcp__s__a'],
    );

    tools = [tool('a'), tool('b')];
    for (let i = 0; i < 10; i += 1) scheduleListRefresh(context, state, 'tools');
    assert.equal(state.debounceTimers.size, 1, 'the burst is coalesced into one pending refresh');
    await until(() => context.catalog.tools.length === 2);
    assert.equal(calls.count, 2);
    assert.equal(state.debounceTimers.size, 0);
    await Promise.all([...context.tasks]);
  });
});
