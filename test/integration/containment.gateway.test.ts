/** The attacks of issue #8 driven through the real gateway (startGateway), the fake model and the fake Discord. */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { FakeDiscord, type FakeMessage, type FakeUser } from '../fakes/fake-discord.js';
import { startFakeLlmServer, type FakeLlmServer } from '../fakes/fake-llm-server.js';
import { startTestGateway, type TestGateway } from '../helpers/start-test-gateway.js';

const CHANNEL_ID = '300000000000000001';
const TOKEN_SECRET = 'discord-token-in-config-4410';
const JWT_SECRET = 'jwt-secret-in-config-4410-jwt-secret-in-config';

const call = (id: string, name: string, args: Record<string, unknown>) => ({
  toolCalls: [{ id, name, arguments: JSON.stringify(args) }],
});

describe('containment through the running gateway', () => {
  let discord: FakeDiscord;
  let llm: FakeLlmServer;
  let gateway: TestGateway;
  let alice: FakeUser;
  before(async () => {
    [discord, llm] = await Promise.all([FakeDiscord.start(), startFakeLlmServer()]);
    gateway = await startTestGateway({
      discord,
      llm,
      configToml: `[auth]\njwt_secret = "${JWT_SECRET}"\n\n[tools]\nsandbox = "auto"\n# ${TOKEN_SECRET}\n`,
      users: [['discord', '400000000000000001', 'alice']],
    });
    alice = discord.user('400000000000000001', 'alice');
  });
  after(async () => {
    await gateway?.close();
  });

  const botMessages = (threadId: string): FakeMessage[] =>
    discord.state.messagesIn(threadId).filter((m) => m.author.id === discord.state.bot.id);
  const answer = (threadId: string, text: string) =>
    discord.waitFor(() => botMessages(threadId).find((m) => m.content === text), 30_000, `answer "${text}"`);
  const card = (threadId: string) =>
    discord.waitFor(
      () => botMessages(threadId).find((m) => JSON.stringify(m.embeds).includes('Approval')),
      30_000,
      'approval card',
    );
  const approveButton = (message: FakeMessage): string => {
    for (const row of message.components as { components?: { label?: string; custom_id?: string }[] }[]) {
      const found = row.components?.find((component) => component.label === 'Approve');
      if (found?.custom_id) return found.custom_id;
    }
    throw new Error('no Approve button');
  };
  const everythingSeen = (threadId: string): string =>
    JSON.stringify([llm.requests.map((request) => request.body), botMessages(threadId)]);

  it('read_file of the config file (no card needed) is refused and nothing leaks to the thread or the model', async () => {
    llm.enqueue(call('call_r1', 'read_file', { path: '../../config.toml' }), { text: 'read attempt over' });
    const mention = discord.state.injectMessage(CHANNEL_ID, alice, 'read the config please', true);
    await answer(mention.id, 'read attempt over');
    const seen = everythingSeen(mention.id);
    assert.ok(!seen.includes(JWT_SECRET) && !seen.includes(TOKEN_SECRET), 'no secret reached the model or the thread');
    assert.match(JSON.stringify(llm.requests.at(-1)?.body), /protected gateway path/);
    assert.equal(botMessages(mention.id).filter((m) => JSON.stringify(m.embeds).includes('Approval')).length, 0);
  });

  it('an approved bash call shows its reach on the card and reaches no secret, no database and not the gateway', async (t) => {
    const health = (await (await fetch(`${gateway.url}/health`)).json()) as { sandbox?: string };
    if (health.sandbox !== 'bwrap') return t.skip('bubblewrap is not usable on this host');
    const command = `cat ../../config.toml; head -c 200 ../../sandpiper.db; cat /proc/${process.pid}/environ; kill -9 ${process.pid}; echo "kill=$?"; ls ..`;
    llm.enqueue(call('call_b1', 'bash', { command }), { text: 'bash attempt over' });
    const mention = discord.state.injectMessage(CHANNEL_ID, alice, 'run this', true);
    const shown = await card(mention.id);
    assert.match(JSON.stringify(shown.embeds), /reach: sandboxed · writes: workspace only · network: off/);
    discord.state.clickButton(shown.id, approveButton(shown), alice);
    await answer(mention.id, 'bash attempt over');
    const result = JSON.stringify(llm.requests.at(-1)?.body);
    assert.match(result, /kill=1/);
    assert.doesNotMatch(result, /SQLite format/);
    const seen = everythingSeen(mention.id);
    assert.ok(!seen.includes(JWT_SECRET) && !seen.includes(TOKEN_SECRET), 'no secret reached the model or the thread');
    assert.equal((await fetch(`${gateway.url}/health`)).status, 200, 'the gateway is still up');
  });

  it('write_file cannot rewrite the config file to auto_approve', async () => {
    llm.enqueue(
      call('call_w1', 'write_file', { path: '../../config.toml', content: '[agent]\nauto_approve = true\n' }),
      { text: 'write attempt over' },
    );
    const mention = discord.state.injectMessage(CHANNEL_ID, alice, 'fix the config', true);
    await answer(mention.id, 'write attempt over');
    assert.match(readFileSync(path.join(gateway.dir, 'config.toml'), 'utf8'), new RegExp(JWT_SECRET));
    assert.match(JSON.stringify(llm.requests.at(-1)?.body), /protected gateway path/);
  });
});
