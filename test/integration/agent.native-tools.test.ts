/**
 * Provider-native tool search and web search on the request bodies, through the real Anthropic and OpenAI clients
 * against the fake LLM and a real MCP server (server-everything over stdio): native tools for the models that have
 * them, the BM25 `tool_search` and the Tavily `web_search` otherwise, and a streamed server-side search answered and
 * replayed.
 */
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
import { ofType, record, turnEnd } from './agent.harness.js';

type Json = Record<string, unknown>;

function toolsOf(body: unknown): Json[] {
  return (body as { tools?: Json[] }).tools ?? [];
}

/** Anthropic tools by name (function tools and server tools alike). */
function anthropicTool(body: unknown, name: string): Json | undefined {
  return toolsOf(body).find((tool) => tool['name'] === name);
}

function openAiNames(body: unknown): string[] {
  return toolsOf(body).map((tool) => String((tool['function'] as Json | undefined)?.['name']));
}

function systemOf(body: unknown): string {
  const record = body as { system?: unknown; messages?: Array<{ role: string; content: unknown }> };
  if (typeof record.system === 'string') return record.system;
  const first = record.messages?.[0];
  return typeof first?.content === 'string' ? first.content : '';
}

describe('native tool search and web search per provider', () => {
  let mcp: McpManager;
  let db: TestStores;
  let dataDir: string;
  let llm: FakeLlmServer;
  let runtime: AgentRuntime;
  let owner: string;

  before(async () => {
    mcp = createMcpManager({
      servers: [everythingStdio()],
      parentEnv: { PATH: process.env['PATH'], HOME: process.env['HOME'] },
      debounceMs: 50,
    });
    await mcp.start();
    db = await createTestStores();
    dataDir = mkdtempSync(join(tmpdir(), 'sandpiper-native-tools-'));
    llm = await startFakeLlmServer();
    const anthropic = (model: string, extra: Json = {}): Json => ({
      provider: 'anthropic',
      base_url: llm.origin,
      api_key: 'sk-ant',
      model,
      ...extra,
    });
    const openai = (model: string, extra: Json = {}): Json => ({
      provider: 'openai',
      base_url: llm.url,
      api_key: 'sk-test',
      model,
      ...extra,
    });
    const config = loadConfig({
      cwd: dataDir,
      env: {},
      flags: {
        'gateway.data_dir': dataDir,
        'tools.search': 'on',
        'agent.auto_approve': true,
        models: {
          claude: anthropic('claude-sonnet-4-6'),
          claude_old: anthropic('claude-3-haiku-20240307'),
          claude_off: anthropic('claude-sonnet-4-6', { native_tool_search: 'off', native_web_search: 'off' }),
          search_gpt: openai('gpt-5-search-api'),
          gpt: openai('gpt-4.1'),
        },
      },
    });
    runtime = await createAgentRuntime(config, db.stores, createSilentLogger(), {
      evictIntervalMs: 0,
      toolSources: [mcp],
    });
    owner = (await db.stores.users.createUser('alice')).userId;
  });

  after(async () => {
    await runtime.close();
    await llm.close();
    await mcp.shutdown();
    await db.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  /** Runs one turn on a new workstream of `alias` and returns the bodies of the requests it made. */
  async function turn(alias: string, ...script: Parameters<FakeLlmServer['enqueue']>): Promise<unknown[]> {
    const before = llm.requests.length;
    llm.enqueue(...script);
    const ws = await runtime.manager.create({ ownerUserId: owner, name: alias, modelAlias: alias });
    const events = record(ws);
    await ws.send('hello');
    assert.equal((await turnEnd(events)).reason, 'done');
    return llm.requests.slice(before).map((request) => request.body);
  }

  it('a Claude model with native tools gets deferred MCP tools, the tool-search tool and the web search tool', async () => {
    const [body] = await turn('claude', { text: 'hi' });
    assert.deepEqual(anthropicTool(body, 'tool_search_tool_bm25'), {
      type: 'tool_search_tool_bm25_20251119',
      name: 'tool_search_tool_bm25',
    });
    assert.deepEqual(anthropicTool(body, 'web_search'), {
      type: 'web_search_20250305',
      name: 'web_search',
      max_uses: 5,
    });
    assert.equal(anthropicTool(body, 'mcp__everything__echo')?.['defer_loading'], true, 'MCP tools are deferred');
    assert.equal(anthropicTool(body, 'bash')?.['defer_loading'], undefined, 'built-ins are never deferred');
    assert.equal(anthropicTool(body, 'tool_search'), undefined, 'no BM25 fallback tool');
    assert.doesNotMatch(systemOf(body), /call tool_search/);
  });

  it('an older Claude model, or one overridden off, gets the fallbacks: BM25 tool_search and the Tavily web_search function', async () => {
    for (const alias of ['claude_old', 'claude_off']) {
      const [body] = await turn(alias, { text: 'hi' });
      assert.ok(anthropicTool(body, 'tool_search')?.['input_schema'] !== undefined, `${alias}: BM25 tool_search`);
      assert.equal(anthropicTool(body, 'tool_search_tool_bm25'), undefined);
      assert.ok(
        anthropicTool(body, 'web_search')?.['input_schema'] !== undefined,
        `${alias}: web_search is our function`,
      );
      assert.equal(anthropicTool(body, 'mcp__everything__echo'), undefined, `${alias}: MCP tools wait for a search`);
      assert.match(systemOf(body), /call tool_search/);
    }
  });

  it('an OpenAI search model gets web_search_options instead of the function; other OpenAI models the fallbacks', async () => {
    const [search] = await turn('search_gpt', {
      text: 'found it',
      webSearch: { query: 'q', results: [{ url: 'https://example.com/a', title: 'A' }] },
    });
    assert.deepEqual((search as Json)['web_search_options'], {});
    assert.ok(!openAiNames(search).includes('web_search'));
    assert.ok(
      openAiNames(search).includes('tool_search'),
      'Chat Completions has no deferred loading: BM25 search stays',
    );
    const [plain] = await turn('gpt', { text: 'hi' });
    assert.equal((plain as Json)['web_search_options'], undefined);
    assert.ok(openAiNames(plain).includes('web_search') && openAiNames(plain).includes('tool_search'));
  });

  it('a streamed Anthropic web search is answered, keeps its server blocks and replays them on the next call', async () => {
    llm.enqueue(
      {
        text: 'The answer is 42.',
        webSearch: { query: 'meaning of life', results: [{ url: 'https://example.com/42', title: 'Deep Thought' }] },
      },
      { text: 'still 42' },
    );
    const ws = await runtime.manager.create({ ownerUserId: owner, name: 'search', modelAlias: 'claude' });
    const events = record(ws);
    const start = llm.requests.length;
    await ws.send('look it up');
    await turnEnd(events);
    assert.equal(
      ofType(events, 'text-delta')
        .map((event) => event.text)
        .join(''),
      'The answer is 42.',
    );
    await ws.send('and again?');
    await turnEnd(events, 2);
    const second = llm.requests[start + 1]?.body as { messages: Array<{ role: string; content: unknown }> };
    const assistant = second.messages.find((message) => message.role === 'assistant');
    const blocks = assistant?.content as Json[];
    assert.deepEqual(
      blocks.map((block) => block['type']),
      ['server_tool_use', 'web_search_tool_result', 'text'],
    );
    assert.deepEqual(blocks[0]?.['input'], { query: 'meaning of life' });
    assert.equal((blocks[1]?.['content'] as Json[])[0]?.['url'], 'https://example.com/42');
  });

  it("an OpenAI search model's citations end the answer as sources", async () => {
    llm.enqueue({
      text: 'Here.',
      webSearch: { query: 'q', results: [{ url: 'https://example.com/s', title: 'Source [1]' }] },
    });
    const ws = await runtime.manager.create({ ownerUserId: owner, name: 'cite', modelAlias: 'search_gpt' });
    const events = record(ws);
    await ws.send('find');
    await turnEnd(events);
    assert.equal(
      ofType(events, 'text-delta')
        .map((event) => event.text)
        .join(''),
      'Here.\n\nSources:\n- [Source 1](https://example.com/s)',
    );
  });
});
