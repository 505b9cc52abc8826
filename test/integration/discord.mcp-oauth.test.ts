/**
 * End to end on Discord: a call to a per-user OAuth MCP server waits like a pending approval. The caller gets the
 * sign-in link by DM; the thread shows a card with Cancel; a Cancel ends the wait with a tool error the model sees;
 * other conversations go on meanwhile; after a sign-in through the gateway's own callback the call proceeds; a task
 * sub-agent acts with the conversation owner's token; /signout forgets only the caller's own sign-in.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { FakeDiscord, type FakeMessage, type FakeUser } from '../fakes/fake-discord.js';
import { startFakeLlmServer, type FakeLlmServer } from '../fakes/fake-llm-server.js';
import { startFakeOAuthMcpServer, type FakeOAuthMcpServer } from '../fakes/fake-oauth-mcp-server.js';
import { startTestGateway, type TestGateway } from '../helpers/start-test-gateway.js';

const CHANNEL_ID = '300000000000000001';
const PUBLIC_URL = 'https://sandpiper.example.test';
const ALICE = '400000000000000031';
const BOB = '400000000000000032';

describe('discord: a call waiting for the caller to sign in to an OAuth MCP server', () => {
  let discord: FakeDiscord;
  let llm: FakeLlmServer;
  let oauth: FakeOAuthMcpServer;
  let gateway: TestGateway;
  let alice: FakeUser;
  let bob: FakeUser;

  before(async () => {
    [discord, llm, oauth] = await Promise.all([FakeDiscord.start(), startFakeLlmServer(), startFakeOAuthMcpServer()]);
    gateway = await startTestGateway({
      discord,
      llm,
      flags: {
        'agent.auto_approve_tools': ['mcp__*', 'task'],
        'gateway.public_url': PUBLIC_URL,
        'mcp.token_key': 'test-token-key-0123456789abcdef',
        'mcp.servers.remote.type': 'http',
        'mcp.servers.remote.url': oauth.url,
        'mcp.servers.remote.auth': 'oauth',
      },
      users: [
        ['discord', ALICE, 'alice'],
        ['discord', BOB, 'bob'],
      ],
      waitConnected: true,
    });
    alice = discord.user(ALICE, 'alice');
    bob = discord.user(BOB, 'bob');
  });

  after(async () => {
    await gateway?.close();
    await oauth?.close();
  });

  const bot = (channelId: string): FakeMessage[] =>
    discord.state.messagesIn(channelId).filter((m) => m.author.id === discord.state.bot.id);
  const waitCard = (threadId: string): FakeMessage | undefined =>
    bot(threadId).find((m) => JSON.stringify(m.embeds).includes('"text":"MCP server remote"'));
  const links = (): string[] =>
    [...discord.state.messages.values()]
      .filter((m) => m.content.includes('needs your authorization'))
      .map((m) => /https?:\/\/\S+/.exec(m.content)?.[0] ?? '');
  const lastToolResult = (): string => {
    const messages = (llm.requests.at(-1)?.body as { messages: { role: string; content: unknown }[] }).messages;
    return JSON.stringify(messages.filter((m) => m.role === 'tool').at(-1)?.content ?? '');
  };
  const answered = (threadId: string, text: string) => () => bot(threadId).some((m) => m.content.includes(text));

  function cancelButton(message: FakeMessage): string {
    const rows = message.components as { components?: { label?: string; custom_id?: string }[] }[];
    const found = rows.flatMap((row) => row.components ?? []).find((component) => component.label === 'Cancel');
    if (!found?.custom_id) throw new Error('no Cancel button');
    return found.custom_id;
  }

  it('shows the wait as a card with Cancel; Cancel ends it with a tool error, and bob is answered meanwhile', async () => {
    llm.enqueue({ toolCalls: [{ id: 'call_a1', name: 'mcp__remote__authorize', arguments: '{}' }] });
    const threadId = discord.state.injectMessage(CHANNEL_ID, alice, 'use the tracker', true).id;
    const card = await discord.waitFor(() => waitCard(threadId), 30_000, 'authorization card');
    assert.equal(links().length, 1);
    assert.equal(JSON.stringify(card).includes(new URL(links()[0] ?? '').searchParams.get('state') ?? '-'), false);

    llm.enqueue({ text: 'hello bob' });
    const bobThread = discord.state.injectMessage(CHANNEL_ID, bob, 'say hello', true).id;
    await discord.waitFor(answered(bobThread, 'hello bob'), 30_000, 'bob answered while alice waits');

    llm.enqueue({ text: 'alice gave up' });
    const stranger = discord.state.clickButton(card.id, cancelButton(card), bob);
    assert.match(
      await discord.waitFor(() => discord.state.interactions.get(stranger.id)?.reply, 15_000, 'refusal'),
      /Only the person/,
    );
    const click = discord.state.clickButton(card.id, cancelButton(card), alice);
    assert.match(
      await discord.waitFor(() => discord.state.interactions.get(click.id)?.reply, 15_000, 'cancel reply'),
      /Cancelled/,
    );
    await discord.waitFor(answered(threadId, 'alice gave up'), 30_000, 'the turn goes on');
    assert.match(lastToolResult(), /cancelled/);
    await discord.waitFor(
      () => JSON.stringify(waitCard(threadId)?.embeds ?? []).includes('Authorization Cancelled'),
      15_000,
      'card marked',
    );
    assert.deepEqual(waitCard(threadId)?.components, []);
  });

  it('after a sign-in through the gateway callback the call proceeds and the card says so', async () => {
    llm.enqueue(
      { toolCalls: [{ id: 'call_a2', name: 'mcp__remote__authorize', arguments: '{}' }] },
      { text: 'signed in' },
    );
    const threadId = discord.state.injectMessage(CHANNEL_ID, alice, 'use the tracker again', true).id;
    await discord.waitFor(() => waitCard(threadId), 30_000, 'authorization card');
    const link = await discord.waitFor(() => links()[1], 15_000, 'second link');
    const callback = await oauth.signIn(link, 'alice');
    assert.equal(callback.origin, PUBLIC_URL);
    const response = await fetch(`${gateway.url}${callback.pathname}${callback.search}`);
    assert.equal(response.status, 200);
    await discord.waitFor(answered(threadId, 'signed in'), 30_000, 'the turn goes on');
    assert.match(lastToolResult(), /Authorized/);
    await discord.waitFor(
      () => JSON.stringify(waitCard(threadId)?.embeds ?? []).includes('"Authorized"'),
      15_000,
      'card marked',
    );
  });

  it("a task sub-agent in alice's thread calls the server as alice (the conversation owner), without a new link", async () => {
    llm.enqueue(
      {
        toolCalls: [{ id: 'call_t1', name: 'task', arguments: JSON.stringify({ prompt: 'ask the tracker who I am' }) }],
      },
      { toolCalls: [{ id: 'call_t2', name: 'mcp__remote__whoami', arguments: '{}' }] },
      { text: 'the tracker knows you' },
      { text: 'task finished' },
    );
    const threadId = discord.state.injectMessage(CHANNEL_ID, alice, 'delegate it', true).id;
    await discord.waitFor(answered(threadId, 'task finished'), 30_000, 'the task result');
    const seen = llm.requests
      .map((request) => JSON.stringify(request.body))
      .filter((body) => body.includes('user=alice'));
    assert.ok(
      seen.length > 0,
      llm.requests
        .slice(-3)
        .map((r) => JSON.stringify((r.body as { messages: unknown[] }).messages.slice(-2)))
        .join('\n---\n'),
    );
    assert.equal(links().length, 2);
  });

  it("/signout forgets only the caller's own sign-in: her next call asks her to sign in again", async () => {
    const bobTry = discord.state.slashCommand('signout', CHANNEL_ID, bob, { server: 'remote' });
    assert.match(
      await discord.waitFor(() => discord.state.interactions.get(bobTry.id)?.reply, 15_000, 'bob reply'),
      /not signed in to remote/,
    );
    const command = discord.state.slashCommand('signout', CHANNEL_ID, alice, { server: 'remote' });
    assert.match(
      await discord.waitFor(() => discord.state.interactions.get(command.id)?.reply, 15_000, 'signout reply'),
      /Signed out of remote/,
    );
    llm.enqueue({ toolCalls: [{ id: 'call_a3', name: 'mcp__remote__whoami', arguments: '{}' }] });
    const threadId = discord.state.injectMessage(CHANNEL_ID, alice, 'who am I there?', true).id;
    await discord.waitFor(() => links()[2], 30_000, 'a new link after signing out');
    await discord.waitFor(() => waitCard(threadId), 15_000, 'authorization card');
  });
});
