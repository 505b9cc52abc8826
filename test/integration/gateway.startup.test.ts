/** The composition root end to end: startGateway with the fake Discord and the fake LLM, over real sockets. */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { loadConfig } from '../../src/config/index.js';
import { mintServiceToken } from '../../src/gateway/http/auth.js';
import { startGateway, type RunningGateway } from '../../src/main.js';
import { createSilentLogger } from '../../src/shared/logger.js';
import { createKnex, createStores } from '../../src/storage/index.js';
import { FakeDiscord } from '../fakes/fake-discord.js';
import { startFakeLlmServer, type FakeLlmServer } from '../fakes/fake-llm-server.js';
import { EVERYTHING } from '../fakes/mcp-servers.js';

const CHANNEL_ID = '300000000000000001';
const SECRET = 'startup-test-secret-startup-test-secret';

async function waitUntil(predicate: () => Promise<boolean>, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await predicate())) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe('startGateway with Discord and MCP', () => {
  let discord: FakeDiscord;
  let llm: FakeLlmServer;
  let running: RunningGateway;
  let dir: string;

  before(async () => {
    [discord, llm] = await Promise.all([FakeDiscord.start(), startFakeLlmServer()]);
    dir = mkdtempSync(path.join(tmpdir(), 'sp-startup-'));
    const config = loadConfig({
      cwd: dir,
      env: { SANDPIPER_HTTP_PORT: '0', SANDPIPER_JWT_SECRET: SECRET, SANDPIPER_DISCORD_TOKEN: discord.token },
      flags: {
        'gateway.data_dir': dir,
        'models.main.provider': 'openai',
        'models.main.base_url': llm.url,
        'models.main.api_key': 'sk-test',
        'models.main.model': 'gpt-fake',
        'discord.api_url': discord.apiUrl,
        'mcp.servers.everything.command': process.execPath,
        'mcp.servers.everything.args': [EVERYTHING, 'stdio'],
      },
    });
    const knex = createKnex(config.database.url);
    running = await startGateway(config, createSilentLogger());
    const stores = createStores(knex);
    const alice = await stores.users.createUser('alice');
    await stores.users.link('discord', '400000000000000001', alice.userId);
    await knex.destroy();
    await running.ready;
  });

  after(async () => {
    await running?.stop();
    await Promise.allSettled([discord?.close(), llm?.close()]);
    rmSync(dir, { recursive: true, force: true });
  });

  it('reports the connected Discord adapter in /health', async () => {
    const body = (await (await fetch(`${running.httpUrl}/health`)).json()) as { adapters: Record<string, string> };
    assert.equal(body.adapters['discord'], 'connected');
  });

  it('connects the configured MCP server and lets an operator refresh it over the admin API', async () => {
    const mcpHealth = async (): Promise<{ servers: number; tools: number; prompts: number }> =>
      ((await (await fetch(`${running.httpUrl}/health`)).json()) as { mcp: { servers: number; tools: number; prompts: number } }).mcp;
    await waitUntil(async () => (await mcpHealth()).tools > 0, 20_000);
    const health = await mcpHealth();
    assert.equal(health.servers, 1);
    assert.ok(health.prompts > 0);
    const headers = { authorization: `Bearer ${await mintServiceToken({ secret: SECRET, audience: 'turnstone-channel' }, { scopes: ['service'] })}` };
    const refreshed = await fetch(`${running.httpUrl}/v1/api/admin/mcp/refresh`, { method: 'POST', headers, body: '{"server":"everything"}' });
    assert.equal(refreshed.status, 200);
    const unknown = await fetch(`${running.httpUrl}/v1/api/admin/mcp/reconnect`, { method: 'POST', headers, body: '{"server":"nope"}' });
    assert.equal(unknown.status, 404);
  });

  it('answers a mention in a new thread', async () => {
    llm.enqueue({ text: ['Hi ', 'Alice!'] });
    const user = discord.user('400000000000000001', 'alice');
    const mention = discord.state.injectMessage(CHANNEL_ID, user, 'hello', true);
    const answer = await discord.waitFor(
      () => discord.state.messagesIn(mention.id).find((m) => m.author.id === discord.state.bot.id && m.content === 'Hi Alice!'),
      20_000,
      'answer in the thread',
    );
    assert.ok(answer);
    const request = llm.requests.at(-1)?.body as { tools?: Array<{ function: { name: string } }>; messages: Array<{ content: unknown }> };
    const toolNames = (request.tools ?? []).map((tool) => tool.function.name);
    assert.ok(toolNames.includes('bash') && toolNames.includes('mcp__everything__echo'), toolNames.join(','));
    assert.match(JSON.stringify(request.messages[0]?.content), /simple-prompt/, 'the MCP prompt catalog is in the system message');
  });

  it('delivers a notify request to the linked user as a direct message', async () => {
    const token = await mintServiceToken({ secret: SECRET, audience: 'turnstone-channel' });
    const response = await fetch(`${running.httpUrl}/v1/api/notify`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ target: { username: 'alice' }, message: 'deploy finished', title: 'CI' }),
    });
    assert.equal(response.status, 200);
    const { results } = (await response.json()) as { results: Array<{ status: string; message_id: string }> };
    assert.equal(results[0]?.status, 'sent');
    const posted = discord.state.messages.get(results[0]?.message_id ?? '');
    assert.equal(posted?.content, '**CI**\ndeploy finished');
    assert.equal(discord.state.channels.get(posted?.channel_id ?? '')?.type, 1);
  });
});
