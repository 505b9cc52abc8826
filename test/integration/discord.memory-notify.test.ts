/**
 * End to end through startGateway, the fake Discord and the fake LLM: a memory saved in one thread is injected
 * into (and found by search in) a new thread of the same user, never another user's; the notify tool reaches
 * the user's DM through this gateway's own /v1/api/notify found in the services table, past a dead gateway, and a
 * reply to that DM reaches the workstream that sent it.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { isoFromMs } from '../../src/shared/time.js';
import { createKnex } from '../../src/storage/index.js';
import { FakeDiscord, type FakeUser } from '../fakes/fake-discord.js';
import { startFakeLlmServer, type FakeLlmServer } from '../fakes/fake-llm-server.js';
import { startFakeNotifyGateway } from '../fakes/fake-notify-gateway.js';
import { startTestGateway, type TestGateway } from '../helpers/start-test-gateway.js';

const CHANNEL_ID = '300000000000000001';
const SECRET = 'memory-notify-secret-memory-notify-secret';

interface OpenAiBody {
  messages: Array<{ role: string; content: unknown }>;
}

describe('memory and notify through the gateway and Discord', () => {
  let discord: FakeDiscord;
  let llm: FakeLlmServer;
  let gateway: TestGateway;
  let alice: FakeUser;
  let mallory: FakeUser;

  before(async () => {
    [discord, llm] = await Promise.all([FakeDiscord.start(), startFakeLlmServer()]);
    gateway = await startTestGateway({
      discord,
      llm,
      jwtSecret: SECRET,
      users: [
        ['discord', '400000000000000031', 'alice'],
        ['discord', '400000000000000032', 'mallory'],
      ],
      waitConnected: true,
    });
    alice = discord.user('400000000000000031', 'alice');
    mallory = discord.user('400000000000000032', 'mallory');
  });
  after(async () => {
    await gateway?.close();
  });

  /** Mentions the bot in the channel (a new thread) and waits for `answer` from the bot there. */
  async function ask(user: FakeUser, text: string, answer: string): Promise<string> {
    const mention = discord.state.injectMessage(CHANNEL_ID, user, text, true);
    await discord.waitFor(
      () =>
        discord.state.messagesIn(mention.id).find((m) => m.author.id === discord.state.bot.id && m.content === answer),
      20_000,
      `"${answer}" in the thread`,
    );
    return mention.id;
  }

  const requestsSince = (start: number): OpenAiBody[] =>
    llm.requests.slice(start).map((request) => request.body as OpenAiBody);
  const systemOf = (body: OpenAiBody | undefined): string => String(body?.messages[0]?.content ?? '');
  const lastToolResult = (body: OpenAiBody | undefined): string =>
    String(body?.messages.filter((m) => m.role === 'tool').at(-1)?.content ?? '');

  it('finds a memory from an earlier thread in a new thread of the same user, and not for another user', async () => {
    const save = {
      action: 'save',
      name: 'release_day',
      content: 'Releases ship on Tuesdays after the canary',
      scope: 'user',
    };
    llm.enqueue(
      { toolCalls: [{ id: 'call_save', name: 'memory', arguments: JSON.stringify(save) }] },
      { text: 'Noted.' },
    );
    await ask(alice, 'remember: releases ship on Tuesdays', 'Noted.');

    let start = llm.requests.length;
    const search = { action: 'search', query: 'releases' };
    llm.enqueue(
      { toolCalls: [{ id: 'call_search', name: 'memory', arguments: JSON.stringify(search) }] },
      { text: 'Tuesdays.' },
    );
    await ask(alice, 'When do releases ship?', 'Tuesdays.');
    let bodies = requestsSince(start);
    assert.match(
      systemOf(bodies[0]),
      /<untrusted source="memory" name="release_day" type="project" scope="user" author="alice">\nReleases ship on Tuesdays after the canary\n<\/untrusted>/,
    );
    assert.match(lastToolResult(bodies[1]), /\[project:user\] release_day\n {4}Releases ship on Tuesdays/);

    start = llm.requests.length;
    llm.enqueue(
      { toolCalls: [{ id: 'call_search2', name: 'memory', arguments: JSON.stringify(search) }] },
      { text: 'No idea.' },
    );
    await ask(mallory, 'When do releases ship?', 'No idea.');
    bodies = requestsSince(start);
    assert.doesNotMatch(systemOf(bodies[0]), /Tuesdays/);
    assert.equal(lastToolResult(bodies[1]), "No memories found for 'releases'.");
  });

  it("delivers the notify tool's message to the user's DM through this gateway, failing over past a dead one", async () => {
    const dead = await startFakeNotifyGateway({ secret: SECRET, audience: 'turnstone-channel' });
    const deadUrl = dead.url;
    await dead.close();
    const knex = createKnex(gateway.databaseUrl);
    try {
      // Registered later than this gateway (newest heartbeat first), so it is tried first and fails.
      const now = isoFromMs(Date.now() + 60_000);
      await knex('services').insert({
        service_type: 'channel',
        service_id: 'channel-dead-0001',
        url: deadUrl,
        metadata: '{}',
        last_heartbeat: now,
        created: now,
      });
      const rows = (await knex('services').orderBy('last_heartbeat', 'desc')) as Array<{ url: string }>;
      assert.deepEqual(
        rows.map((row) => row.url),
        [deadUrl, gateway.url],
      );
    } finally {
      await knex.destroy();
    }
    const notify = { message: 'The nightly build is green', title: 'Build', username: 'alice' };
    llm.enqueue(
      { toolCalls: [{ id: 'call_notify', name: 'notify', arguments: JSON.stringify(notify) }] },
      { text: 'Sent you a DM.' },
    );
    const start = llm.requests.length;
    await ask(alice, 'ping me when the build is green', 'Sent you a DM.');
    assert.equal(lastToolResult(requestsSince(start)[1]), 'Notification sent successfully');
    const dm = [...discord.state.messages.values()].find((m) => m.content === '**Build**\nThe nightly build is green');
    assert.ok(dm, 'the DM was posted');
    assert.equal(discord.state.channels.get(dm.channel_id)?.type, 1);
  });

  it('routes a reply to the notify tool’s DM into the workstream that sent it and answers in the DM', async () => {
    const dm = [...discord.state.messages.values()].find((m) => m.content === '**Build**\nThe nightly build is green');
    assert.ok(dm, 'the notification of the previous test');
    llm.enqueue({ text: 'Yes, the nightly build passed.' });
    const start = llm.requests.length;
    discord.state.injectMessage(dm.channel_id, alice, 'did everything pass?', false, dm.id);
    await discord.waitFor(
      () =>
        discord.state
          .messagesIn(dm.channel_id)
          .find((m) => m.author.id === discord.state.bot.id && m.content === 'Yes, the nightly build passed.'),
      20_000,
      'the answer in the DM',
    );
    const body = JSON.stringify(requestsSince(start)[0]);
    assert.match(body, /ping me when the build is green/, 'the thread’s workstream, with its history');
    assert.match(body, /did everything pass\?/);
  });
});
