/** Manager behaviour that needs no live server: empty and failing configurations, listeners, shutdown. */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createSilentLogger } from '../../shared/logger.js';
import { createMcpManager } from './mcp-manager.js';
import type { McpServerSpec } from './mcp-server-spec.js';

const missingCommand: McpServerSpec = {
  name: 'broken',
  source: 'toml',
  transport: 'stdio',
  command: '/nonexistent/sandpiper-mcp-server',
  args: [],
  env: {},
  url: '',
  headers: {},
};

describe('createMcpManager', () => {
  it('shuts down without having started, and twice', async () => {
    const manager = createMcpManager({ servers: [missingCommand], parentEnv: {} });
    await manager.shutdown();
    await manager.shutdown();
  });

  it('works with no servers: nothing offered, zero counts, empty system prompt section', async () => {
    const manager = createMcpManager({ servers: [], parentEnv: {} });
    await manager.start();
    assert.deepEqual(await manager.listTools(), []);
    assert.equal(manager.hasTool('read_resource'), false);
    assert.deepEqual(manager.status(), {
      servers: 0,
      configured: 0,
      tools: 0,
      resources: 0,
      prompts: 0,
      errors: 0,
      perServer: [],
    });
    assert.equal(manager.systemPromptSection(), '');
    await manager.shutdown();
  });

  it('records a failed start-up connect as an error and one breaker failure', async () => {
    const manager = createMcpManager({ servers: [missingCommand], parentEnv: {} });
    await manager.start();
    const [status] = manager.status().perServer;
    assert.equal(status?.connected, false);
    assert.match(status?.error ?? '', /ENOENT|connection failed/);
    assert.equal(status?.consecutiveFailures, 1);
    assert.equal(manager.status().errors, 1);
    await manager.shutdown();
  });

  it('syncs nothing without a prompt-template store', async () => {
    const manager = createMcpManager({ servers: [], parentEnv: {} });
    assert.deepEqual(await manager.syncPromptTemplates(), { added: [], updated: [], removed: [], skipped: [] });
    await manager.shutdown();
  });

  it('answers unknown servers on refresh (error) and reconnect (status)', async () => {
    const manager = createMcpManager({ servers: [missingCommand], parentEnv: {} });
    await assert.rejects(manager.refresh('ghost'), /Unknown MCP server: ghost\. Known servers: broken/);
    const status = await manager.reconnect('ghost');
    assert.deepEqual(
      [status.connected, status.tools, status.resources, status.prompts, status.error],
      [false, 0, 0, 0, 'unknown server'],
    );
    await manager.shutdown();
  });

  it('keeps notifying other listeners when one throws, and stops after unsubscribe', async () => {
    const manager = createMcpManager({ servers: [missingCommand], parentEnv: {} });
    const seen: string[] = [];
    manager.onChange(() => {
      throw new Error('listener bug');
    });
    const stop = manager.onChange((kind) => seen.push(kind));
    await manager.reconnect('broken');
    assert.deepEqual(seen, ['tools', 'resources', 'prompts']);
    stop();
    await manager.reconnect('broken');
    assert.equal(seen.length, 3);
    await manager.shutdown();
  });

  it('reports unknown tool calls as error results instead of throwing', async () => {
    const manager = createMcpManager({ servers: [], parentEnv: {} });
    const result = await manager.callTool(
      'mcp__no__such',
      {},
      {
        signal: new AbortController().signal,
        workstreamId: 'w',
        cwd: '.',
        timeoutMs: 1000,
        outputLimit: 1000,
        supportsVision: false,
        readFiles: new Set(),
        logger: createSilentLogger(),
      },
    );
    assert.deepEqual(result, { output: 'MCP tool error: Unknown MCP tool: mcp__no__such', isError: true });
    await manager.shutdown();
  });
});

describe('server name rules in the manager', () => {
  it('skips a server whose name contains "__" and keeps the others', async () => {
    const manager = createMcpManager({
      servers: [{ ...missingCommand, name: 'my__bad' }, missingCommand],
      parentEnv: {},
    });
    assert.deepEqual(
      manager.status().perServer.map((server) => server.name),
      ['broken'],
    );
    const result = await manager.reconcile([{ ...missingCommand, name: 'bad__again' }]);
    assert.deepEqual([result.added, result.removed], [[], ['broken']]);
    await manager.shutdown();
  });
});
