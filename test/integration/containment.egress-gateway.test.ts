/**
 * Network cards through the running gateway (issue 32, item 3): a sandboxed bash asks for a new host, the owner's
 * Allow once / Always here / Deny on the Discord card is honoured, loopback and metadata addresses get no card, and
 * `sandpiper policy network` lists the decisions. Real bubblewrap, curl, the fake Discord and the fake model.
 */
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { findExecutable } from '../../src/agent/tools/run-contained.js';
import { listNetworkDecisions } from '../../src/gateway/admin/admin-network.js';
import { createKnex, createStores } from '../../src/storage/index.js';
import { FakeDiscord, type FakeMessage, type FakeUser } from '../fakes/fake-discord.js';
import { startFakeLlmServer, type FakeLlmServer } from '../fakes/fake-llm-server.js';
import { startTestGateway, type TestGateway } from '../helpers/start-test-gateway.js';

const CHANNEL_ID = '300000000000000001';
const ALICE = '400000000000000001';

const call = (id: string, name: string, args: Record<string, unknown>) => ({
  toolCalls: [{ id, name, arguments: JSON.stringify(args) }],
});

interface TestServer {
  server: http.Server;
  port: number;
  /** Paths requested so far. */
  hits: string[];
}

async function startServer(body: string): Promise<TestServer> {
  const hits: string[] = [];
  const server = http.createServer((request, response) => {
    hits.push(request.url ?? '');
    response.end(`${body} ${request.url}`);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, port: (server.address() as AddressInfo).port, hits };
}

describe('network cards through the running gateway', () => {
  let discord: FakeDiscord;
  let llm: FakeLlmServer;
  let gateway: TestGateway;
  let alice: FakeUser;
  let allowed: TestServer;
  let fresh: TestServer;
  let sandboxed = false;

  before(async () => {
    [discord, llm, allowed, fresh] = await Promise.all([
      FakeDiscord.start(),
      startFakeLlmServer(),
      startServer('ALLOWED-HOST'),
      startServer('NEW-HOST'),
    ]);
    const tools = [
      'sandbox = "auto"',
      'network = "ask"',
      `network_allow = ["127.0.0.1:${allowed.port}"]`,
      // The test's local servers stand in for remote hosts: the operator's explicit trust for these private destinations.
      `network_internal = ["127.0.0.1:${allowed.port}", "127.0.0.1:${fresh.port}"]`,
    ].join('\n');
    gateway = await startTestGateway({
      discord,
      llm,
      configToml: `[agent]\nauto_approve_tools = ["bash"]\n\n[tools]\n${tools}\n`,
      users: [['discord', ALICE, 'alice']],
    });
    alice = discord.user(ALICE, 'alice');
    sandboxed =
      ((await gateway.health()) as { sandbox?: string }).sandbox === 'bwrap' &&
      (await findExecutable('curl')) !== undefined;
  });
  after(async () => {
    allowed?.server.close();
    fresh?.server.close();
    await gateway?.close();
  });

  const botMessages = (threadId: string): FakeMessage[] =>
    discord.state.messagesIn(threadId).filter((m) => m.author.id === discord.state.bot.id);
  const networkCards = (threadId: string): FakeMessage[] =>
    botMessages(threadId).filter((m) => JSON.stringify(m.embeds).includes('Network Access Requested'));
  const answer = (threadId: string, text: string) =>
    discord.waitFor(() => botMessages(threadId).find((m) => m.content === text), 30_000, `answer "${text}"`);
  const nthCard = (threadId: string, count: number) =>
    discord.waitFor(() => networkCards(threadId)[count - 1], 30_000, `network card ${count}`);
  const button = (message: FakeMessage, label: string): string => {
    for (const row of message.components as { components?: { label?: string; custom_id?: string }[] }[]) {
      const found = row.components?.find((component) => component.label === label);
      if (found?.custom_id) return found.custom_id;
    }
    throw new Error(`no ${label} button`);
  };
  /** The newest tool result the model was sent. */
  const lastToolResult = (): string => {
    const messages =
      (llm.requests.at(-1)?.body as { messages?: Array<{ role: string; content: unknown }> } | undefined)?.messages ??
      [];
    return String(messages.filter((message) => message.role === 'tool').at(-1)?.content ?? '');
  };
  const curl = (port: number, path: string): string =>
    `curl -sS -i --max-time 20 http://127.0.0.1:${port}${path}; echo " exit=$?"`;

  it('asks about a new host, and Allow once, Deny and Always here are each honoured', async (t) => {
    if (!sandboxed) return t.skip('bubblewrap or curl is not usable on this host');
    llm.enqueue(call('n1', 'bash', { command: curl(fresh.port, '/once') }), { text: 'once over' });
    const mention = discord.state.injectMessage(CHANNEL_ID, alice, 'fetch it', true);
    const thread = mention.id;
    const first = await nthCard(thread, 1);
    assert.match(JSON.stringify(first.embeds), new RegExp(`bash wants to reach 127\\.0\\.0\\.1:${fresh.port}`));
    discord.state.clickButton(first.id, button(first, 'Allow once'), alice);
    await answer(thread, 'once over');
    assert.match(lastToolResult(), /NEW-HOST \/once/);

    llm.enqueue(call('n2', 'bash', { command: curl(fresh.port, '/denied') }), { text: 'deny over' });
    discord.state.injectMessage(thread, alice, 'again');
    const second = await nthCard(thread, 2);
    discord.state.clickButton(second.id, button(second, 'Deny'), alice);
    await answer(thread, 'deny over');
    assert.doesNotMatch(lastToolResult(), /NEW-HOST/);
    assert.match(lastToolResult(), /403 Forbidden[\s\S]*the owner denied 127\.0\.0\.1/);

    llm.enqueue(call('n3', 'bash', { command: curl(fresh.port, '/always') }), { text: 'always over' });
    discord.state.injectMessage(thread, alice, 'and keep it');
    const third = await nthCard(thread, 3);
    discord.state.clickButton(third.id, button(third, 'Always here'), alice);
    await answer(thread, 'always over');
    assert.match(lastToolResult(), /NEW-HOST \/always/);

    llm.enqueue(
      call('n4', 'bash', { command: `${curl(fresh.port, '/remembered')}; ${curl(allowed.port, '/listed')}` }),
      { text: 'remembered over' },
    );
    discord.state.injectMessage(thread, alice, 'once more');
    await answer(thread, 'remembered over');
    assert.match(lastToolResult(), /NEW-HOST \/remembered[\s\S]*ALLOWED-HOST \/listed/);
    assert.equal(networkCards(thread).length, 3, 'Always here and the allowlist need no further card');
    const shown = JSON.stringify(networkCards(thread).map((card) => card.embeds));
    assert.match(shown, /Allowed once/);
    assert.match(shown, /Denied/);
    assert.match(shown, /Always allowed here/);

    // What `sandpiper policy network` prints, read from the gateway's own database while it runs.
    const knex = createKnex(gateway.databaseUrl);
    try {
      const decisions = await listNetworkDecisions(createStores(knex), 10);
      assert.deepEqual(
        decisions.map((entry) => `${entry.tool} ${entry.destination} ${entry.decision} ${entry.decided_by}`),
        ['always here', 'denied', 'allowed once'].map((decision) => `bash 127.0.0.1:${fresh.port} ${decision} alice`),
      );
    } finally {
      await knex.destroy();
    }
  });

  it('refuses loopback and metadata addresses without a card', async (t) => {
    if (!sandboxed) return t.skip('bubblewrap or curl is not usable on this host');
    const gatewayPort = new URL(gateway.url).port;
    const command = [
      `curl -sS -i --max-time 20 ${gateway.url}/health`,
      'curl -sS -i --max-time 20 http://169.254.169.254/latest/meta-data/',
      'curl -sS -i --max-time 20 http://10.1.2.3/',
    ].join('; ');
    llm.enqueue(call('r1', 'bash', { command }), { text: 'refusals over' });
    const mention = discord.state.injectMessage(CHANNEL_ID, alice, 'probe', true);
    await answer(mention.id, 'refusals over');
    const result = lastToolResult();
    assert.match(result, new RegExp(`127\\.0\\.0\\.1:${gatewayPort} is the gateway itself`));
    assert.match(result, /Blocked: URL resolves to private\/internal address \(169\.254\.169\.254\)/);
    assert.match(result, /Blocked: URL resolves to private\/internal address \(10\.1\.2\.3\)/);
    assert.doesNotMatch(result, /"status":"ok"|adapters/);
    assert.equal(networkCards(mention.id).length, 0);
  });

  it('withdraws a card when the call ends before the owner answers; a late click runs nothing', async (t) => {
    if (!sandboxed) return t.skip('bubblewrap or curl is not usable on this host');
    llm.enqueue(
      call('w1', 'bash', { command: `curl -sS --max-time 2 http://127.0.0.1:${fresh.port}/late; echo " exit=$?"` }),
      { text: 'late over' },
    );
    const mention = discord.state.injectMessage(CHANNEL_ID, alice, 'quick one', true);
    const card = await nthCard(mention.id, 1);
    const allowOnce = button(card, 'Allow once');
    await answer(mention.id, 'late over');
    assert.match(lastToolResult(), / exit=28/, 'curl gave up waiting');
    const withdrawn = await discord.waitFor(
      () => {
        const current = discord.state.messagesIn(mention.id).find((message) => message.id === card.id);
        return current &&
          JSON.stringify(current.embeds).includes('Cancelled') &&
          (current.components as unknown[]).length === 0
          ? current
          : undefined;
      },
      30_000,
      'withdrawn card',
    );
    assert.ok(withdrawn);
    const click = discord.state.clickButton(card.id, allowOnce, alice);
    const reply = await discord.waitFor(() => click.reply, 30_000, 'late click reply');
    assert.match(reply, /already decided \(cancelled\)|no longer active/);
    assert.equal(fresh.hits.filter((path) => path === '/late').length, 0, 'nothing reached the host');
  });
});
