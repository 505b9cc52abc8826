/** The composition root end to end: startGateway with the fake Discord and the fake LLM, over real sockets. */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { mintAdminToken, mintServiceToken } from '../../src/gateway/http/auth.js';
import { FakeDiscord } from '../fakes/fake-discord.js';
import { startFakeLlmServer, type FakeLlmServer } from '../fakes/fake-llm-server.js';
import { EVERYTHING, waitFor } from '../fakes/mcp-servers.js';
import { startTestGateway, type TestGateway } from '../helpers/start-test-gateway.js';

const CHANNEL_ID = '300000000000000001';
const SECRET = 'startup-test-secret-startup-test-secret';
const ADMIN_SECRET = 'startup-test-admin-secret-startup-test-admin';

describe('startGateway with Discord and MCP', () => {
  let discord: FakeDiscord;
  let llm: FakeLlmServer;
  let gateway: TestGateway;

  before(async () => {
    [discord, llm] = await Promise.all([FakeDiscord.start(), startFakeLlmServer()]);
    gateway = await startTestGateway({
      discord,
      llm,
      jwtSecret: SECRET,
      adminSecret: ADMIN_SECRET,
      mcpServers: { everything: [EVERYTHING, 'stdio'] },
      // server-everything pushes the count above the auto tool-search threshold; this test wants every tool sent.
      flags: { 'tools.search': 'off' },
      users: [['discord', '400000000000000001', 'alice']],
    });
  });

  after(async () => {
    await gateway?.close();
  });

  it('reports the connected Discord adapter in /health', async () => {
    assert.equal((await gateway.health()).adapters['discord'], 'connected');
  });

  it('connects the configured MCP server and lets an operator refresh it over the admin API', async () => {
    await waitFor(async () => (await gateway.health()).mcp.tools > 0, 'MCP tools', 20_000);
    const health = (await gateway.health()).mcp;
    assert.equal(health.servers, 1);
    assert.ok(health.prompts > 0);
    const headers = {
      authorization: `Bearer ${await mintAdminToken(ADMIN_SECRET, { subject: 'ops', scopes: ['admin:write'] })}`,
    };
    const refreshed = await fetch(`${gateway.adminUrl}/v1/api/admin/mcp/refresh`, {
      method: 'POST',
      headers,
      body: '{"server":"everything"}',
    });
    assert.equal(refreshed.status, 200);
    const unknown = await fetch(`${gateway.adminUrl}/v1/api/admin/mcp/reconnect`, {
      method: 'POST',
      headers,
      body: '{"server":"nope"}',
    });
    assert.equal(unknown.status, 404);
  });

  it('answers a mention in a new thread', async () => {
    llm.enqueue({ text: ['Hi ', 'Alice!'] });
    const user = discord.user('400000000000000001', 'alice');
    const mention = discord.state.injectMessage(CHANNEL_ID, user, 'hello', true);
    const answer = await discord.waitFor(
      () =>
        discord.state
          .messagesIn(mention.id)
          .find((m) => m.author.id === discord.state.bot.id && m.content === 'Hi Alice!'),
      20_000,
      'answer in the thread',
    );
    assert.ok(answer);
    const request = llm.requests.at(-1)?.body as {
      tools?: Array<{ function: { name: string } }>;
      messages: Array<{ content: unknown }>;
    };
    const toolNames = (request.tools ?? []).map((tool) => tool.function.name);
    assert.ok(toolNames.includes('bash') && toolNames.includes('mcp__everything__echo'), toolNames.join(','));
    assert.match(
      JSON.stringify(request.messages[0]?.content),
      /simple-prompt/,
      'the MCP prompt catalog is in the system message',
    );
  });

  it('delivers notify requests to the linked user as direct messages, opening the DM channel once', async () => {
    const token = await mintServiceToken({ secret: SECRET, audience: 'turnstone-channel' });
    const notify = async (message: string): Promise<{ status: string; message_id: string } | undefined> => {
      const response = await fetch(`${gateway.url}/v1/api/notify`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ target: { username: 'alice' }, message, title: 'CI' }),
      });
      assert.equal(response.status, 200);
      return ((await response.json()) as { results: Array<{ status: string; message_id: string }> }).results[0];
    };
    const opensBefore = discord.state.dmOpens;
    const first = await notify('deploy finished');
    assert.equal(first?.status, 'sent');
    const posted = discord.state.messages.get(first?.message_id ?? '');
    assert.equal(posted?.content, '**CI**\ndeploy finished');
    const dm = posted?.channel_id ?? '';
    assert.equal(discord.state.channels.get(dm)?.type, 1);
    const second = await notify('tests passed');
    assert.equal(discord.state.messages.get(second?.message_id ?? '')?.channel_id, dm);
    assert.equal(discord.state.dmOpens, opensBefore + 1, 'the second notification reuses the DM channel');
    // The remembered channel disappears: that delivery fails, and the next one opens the channel again.
    discord.state.channels.delete(dm);
    assert.equal((await notify('lost'))?.status, 'failed');
    const again = await notify('found again');
    assert.equal(again?.status, 'sent');
    assert.equal(discord.state.dmOpens, opensBefore + 2);
    assert.equal(discord.state.messages.get(again?.message_id ?? '')?.content, '**CI**\nfound again');
  });
});
