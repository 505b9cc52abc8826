/** Tool search end to end: real OpenAI client against the fake LLM, real server-everything over stdio. */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createMcpManager, type McpManager } from '../../src/agent/mcp/mcp-manager.js';
import { loadConfig } from '../../src/config/index.js';
import { createAgentRuntime, type AgentRuntime } from '../../src/main-agent.js';
import { createSilentLogger } from '../../src/shared/logger.js';
import { startFakeLlmServer, type FakeLlmServer } from '../fakes/fake-llm-server.js';
import { everythingStdio } from '../fakes/mcp-servers.js';
import { createTestStores, type TestStores } from '../helpers/test-stores.js';
import { ofType, record, toolIdsOf, turnEnd } from './agent.harness.js';

interface OpenAiBody {
  messages: Array<{ role: string; content: unknown }>;
  tools?: Array<{ function: { name: string; description: string } }>;
}

function toolNames(body: unknown): string[] {
  return ((body as OpenAiBody).tools ?? []).map((tool) => tool.function.name);
}

function systemText(body: unknown): string {
  const first = (body as OpenAiBody).messages[0];
  return typeof first?.content === 'string' ? first.content : JSON.stringify(first?.content);
}

describe('tool search through the real OpenAI client and server-everything', () => {
  let mcp: McpManager;
  let db: TestStores;
  let dataDir: string;
  const open: Array<{ llm: FakeLlmServer; runtime: AgentRuntime }> = [];

  before(async () => {
    mcp = createMcpManager({
      servers: [everythingStdio()],
      parentEnv: { PATH: process.env['PATH'], HOME: process.env['HOME'] },
      debounceMs: 50,
    });
    await mcp.start();
    db = await createTestStores();
    dataDir = mkdtempSync(join(tmpdir(), 'sandpiper-tool-search-'));
  });

  after(async () => {
    for (const { llm, runtime } of open) {
      await runtime.close();
      await llm.close();
    }
    await mcp.shutdown();
    await db.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  async function start(
    search: 'on' | 'off' | 'auto',
    threshold = 20,
  ): Promise<{ llm: FakeLlmServer; runtime: AgentRuntime }> {
    const llm = await startFakeLlmServer();
    const config = loadConfig({
      cwd: dataDir,
      env: {},
      flags: {
        'gateway.data_dir': dataDir,
        'tools.search': search,
        'tools.search_threshold': threshold,
        'agent.auto_approve': true,
        models: { main: { provider: 'openai', base_url: llm.url, api_key: 'sk-test', model: 'fake-model' } },
      },
    });
    const runtime = await createAgentRuntime(config, db.stores, createSilentLogger(), {
      evictIntervalMs: 0,
      toolSources: [mcp],
    });
    open.push({ llm, runtime });
    return { llm, runtime };
  }

  async function owner(): Promise<string> {
    const user = (await db.stores.users.getUserByUsername('alice')) ?? (await db.stores.users.createUser('alice'));
    return user.userId;
  }

  it('sends built-ins + tool_search, finds echo, then offers and runs it', async () => {
    const { llm, runtime } = await start('on');
    llm.enqueue(
      { toolCalls: [{ id: 'call_s', name: 'tool_search', arguments: '{"query":"echo"}' }] },
      { toolCalls: [{ id: 'call_e', name: 'mcp__everything__echo', arguments: '{"message":"hello search"}' }] },
      { text: 'done' },
    );
    const ws = await runtime.manager.create({ ownerUserId: await owner(), name: 'search' });
    const events = record(ws);
    await ws.send('please echo');
    assert.equal((await turnEnd(events)).reason, 'done');
    const [first, second, third] = llm.requests.map((request) => request.body);
    const firstNames = toolNames(first);
    assert.ok(firstNames.includes('tool_search') && firstNames.includes('bash') && firstNames.includes('read_file'));
    assert.ok(!firstNames.some((name) => name.startsWith('mcp__')), 'no MCP tool before searching');
    const searchTool = (first as OpenAiBody).tools?.find((tool) => tool.function.name === 'tool_search');
    assert.match(searchTool?.function.description ?? '', /Available tool servers: everything \(\d+ tools\)\./);
    assert.match(systemText(first), /tool_search/);
    const searchResult = toolIdsOf('openai', second).resultTexts[0] ?? '';
    assert.match(searchResult, /^Found \d matching tool\(s\):/);
    assert.match(searchResult, /- \*\*mcp__everything__echo\*\*: /);
    assert.ok(toolNames(second).includes('mcp__everything__echo'));
    assert.deepEqual(toolIdsOf('openai', third).resultTexts.slice(-1), [
      '<untrusted source="mcp" server="everything" tool="echo">\nEcho: hello search\n</untrusted>',
    ]);
    assert.ok(toolNames(third).includes('mcp__everything__echo'), 'expanded tools stay visible');
    assert.equal(ofType(events, 'approval-request').length, 0);
  });

  it('an MCP tool called by exact name without searching still runs and stays visible', async () => {
    const { llm, runtime } = await start('auto', 5);
    llm.enqueue(
      { toolCalls: [{ id: 'call_d', name: 'mcp__everything__get-sum', arguments: '{"a":2,"b":3}' }] },
      { text: 'ok' },
    );
    const ws = await runtime.manager.create({ ownerUserId: await owner(), name: 'direct' });
    const events = record(ws);
    await ws.send('add');
    await turnEnd(events);
    const [first, second] = llm.requests.map((request) => request.body);
    assert.ok(!toolNames(first).includes('mcp__everything__get-sum'));
    assert.match(toolIdsOf('openai', second).resultTexts[0] ?? '', /The sum of 2 and 3 is 5/);
    assert.ok(toolNames(second).includes('mcp__everything__get-sum'));
  });

  it('off sends every tool and no tool_search', async () => {
    const { llm, runtime } = await start('off', 0);
    llm.enqueue({ text: 'hi' });
    const ws = await runtime.manager.create({ ownerUserId: await owner(), name: 'off' });
    const events = record(ws);
    await ws.send('hello');
    await turnEnd(events);
    const names = toolNames(llm.requests[0]?.body);
    assert.ok(names.includes('mcp__everything__echo') && names.includes('bash'));
    assert.ok(!names.includes('tool_search'));
    assert.doesNotMatch(systemText(llm.requests[0]?.body), /tool_search/);
  });
});
