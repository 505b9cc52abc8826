/**
 * kill -9 of the real gateway process at the turn log's commit points (docs/design/durability.md), on Discord through
 * discord.js and the fakes. *answered*: a complete answer is committed before its final edit, so a kill after the final
 * edit, or between the commit and the edit, never makes the restart answer the question again (a missing final edit is
 * made with the committed text, or posted, keyed, when no message of it was shown). *accepted*: a waiting message's row goes in the same write as its turn's start, so
 * a kill after its answer never answers it twice.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { FakeDiscord, type FakeMessage, type FakeUser } from '../fakes/fake-discord.js';
import { startFakeLlmServer, type FakeLlmServer } from '../fakes/fake-llm-server.js';
import { waitFor } from '../fakes/mcp-servers.js';
import { GatewayProcesses } from '../helpers/gateway-process.js';

const CHANNEL_ID = '300000000000000001';
const NOTE = /Interrupted by a restart/;
const words = (prefix: string, count: number): string[] =>
  Array.from({ length: count }, (_, index) => `${prefix}${index} `);

function botMessages(discord: FakeDiscord, threadId: string): FakeMessage[] {
  return discord.state.messagesIn(threadId).filter((message) => message.author.id === discord.state.bot.id);
}

describe('kill -9 at the commit points of a turn', () => {
  let discord: FakeDiscord;
  let llm: FakeLlmServer;
  let gateways: GatewayProcesses;
  let user: FakeUser;

  before(async () => {
    [discord, llm] = await Promise.all([FakeDiscord.start(), startFakeLlmServer()]);
    gateways = new GatewayProcesses({ llm, discord, extraToml: '[tools]\nsandbox = "off"\n' });
    await gateways.start();
    await gateways.linkUser('discord', '400000000000000041', 'gale');
    user = discord.user('400000000000000041', 'gale');
  });
  after(async () => {
    await gateways?.close();
    await Promise.allSettled([discord?.close(), llm?.close()]);
  });

  async function mention(text: string): Promise<string> {
    const message = discord.state.injectMessage(CHANNEL_ID, user, text, true);
    await discord.waitFor(() => discord.state.channels.get(message.id), 20_000, 'thread creation');
    return message.id;
  }

  /** The stored history of the thread's workstream: the contents of its rows, oldest first. */
  async function history(threadId: string): Promise<string[]> {
    const route = await gateways.stores().routes.getRoute('discord', threadId);
    const rows = (await gateways
      .db()('conversations')
      .where({ ws_id: route?.wsId ?? '' })
      .orderBy('id')
      .select('content')) as Array<{ content: string }>;
    return rows.map((row) => row.content.trim());
  }

  async function journalEmpty(): Promise<void> {
    await waitFor(
      async () => (await gateways.db()('turn_journal').select('turn_id')).length === 0,
      'nothing left to settle',
      30_000,
    );
  }

  it('killed right after the final edit of a complete answer: the restart shows it once and does not answer again', async () => {
    const requestsBefore = llm.requests.length;
    const answer = words('omega', 12).join('').trim();
    // The stop reason arrives and the stream then hangs: the answer is complete and shown, its usage never comes.
    llm.enqueue({ text: words('omega', 12), delayMs: 20, hangAfterStop: true });
    const threadId = await mention('a short answer, please');
    await discord.waitFor(
      () =>
        botMessages(discord, threadId).find(
          (message) => message.content.trim() === answer && message.components.length === 0,
        ),
      30_000,
      'the final edit',
    );
    assert.ok((await history(threadId)).includes(answer), 'committed before the final edit');
    await gateways.kill();

    await gateways.start();
    await journalEmpty();
    assert.equal(llm.requests.length, requestsBefore + 1, 'not answered a second time');
    const texts = botMessages(discord, threadId).map((message) => message.content.trim());
    assert.deepEqual(texts, [answer], 'one answer, no note');
    assert.equal((await history(threadId)).filter((content) => content === answer).length, 1, 'stored once');
  });

  it("killed between the answer's commit and its final edit: the restart edits the committed text into place", async () => {
    const requestsBefore = llm.requests.length;
    const answer = words('sigma', 40).join('').trim();
    llm.enqueue({ text: words('sigma', 40), delayMs: 40, hangAfterStop: true });
    const threadId = await mention('another answer, please');
    const live = await discord.waitFor(
      () => botMessages(discord, threadId).find((message) => message.content.startsWith('sigma0')),
      30_000,
      'the live answer',
    );
    // From now on the thread's edits are held off (rate limited for a minute): the final edit cannot land.
    discord.rateLimit('PATCH', new RegExp(`/channels/${threadId}/messages/`), 1, 60);
    await waitFor(async () => (await history(threadId)).includes(answer), 'the answer to be committed', 30_000);
    assert.notEqual(live.content.trim(), answer, 'the thread does not show the final text yet');
    await gateways.kill();

    await gateways.start();
    await discord.waitFor(
      () => (live.content.trim() === answer ? live : undefined),
      30_000,
      'the committed answer edited into place',
    );
    await journalEmpty();
    assert.equal(llm.requests.length, requestsBefore + 1, 'not answered a second time');
    assert.deepEqual(
      botMessages(discord, threadId).map((message) => message.content.trim()),
      [answer],
    );
    assert.ok(!botMessages(discord, threadId).some((message) => NOTE.test(message.content)), 'no interruption note');
  });

  it("killed between the answer's commit and its first post: the restart posts the committed text, once", async () => {
    const requestsBefore = llm.requests.length;
    const answer = words('kappa', 8).join('').trim();
    llm.enqueue({ text: words('kappa', 8), delayMs: 5, hangAfterStop: true });
    const message = discord.state.injectMessage(CHANNEL_ID, user, 'a quick answer, please', true);
    // The thread's first post is held off for a minute: nothing of the answer is shown or recorded when it commits.
    discord.rateLimit('POST', new RegExp(`/channels/${message.id}/messages$`), 1, 60);
    await waitFor(async () => (await history(message.id)).includes(answer), 'the answer to be committed', 30_000);
    assert.deepEqual(botMessages(discord, message.id), [], 'nothing shown yet');
    await gateways.kill();

    await gateways.start();
    await journalEmpty();
    await discord.waitFor(
      () => botMessages(discord, message.id).find((posted) => posted.content.trim() === answer),
      30_000,
      'the committed answer posted',
    );
    assert.equal(llm.requests.length, requestsBefore + 1, 'not answered a second time');
    assert.deepEqual(
      botMessages(discord, message.id).map((posted) => posted.content.trim()),
      [answer],
      'once, without a note',
    );
  });

  it("killed after a waiting message was answered: its row went with its turn's start, it is not answered again", async () => {
    const requestsBefore = llm.requests.length;
    llm.enqueue({ text: words('tau', 30), delayMs: 60 }, { text: 'The follow-up, answered.', hangAfterStop: true });
    const threadId = await mention('a story, then a follow-up');
    await discord.waitFor(
      () => botMessages(discord, threadId).find((message) => message.content.includes('tau3 ')),
      30_000,
      'the streaming answer',
    );
    discord.state.injectMessage(threadId, user, 'the follow-up that waits');
    await waitFor(
      async () => (await gateways.db()('queued_messages').select('turn_id')).length === 1,
      'the waiting message to be stored',
      30_000,
    );
    await discord.waitFor(
      () =>
        botMessages(discord, threadId).find(
          (message) => message.content === 'The follow-up, answered.' && message.components.length === 0,
        ),
      30_000,
      'the follow-up answered',
    );
    assert.equal(
      (await gateways.db()('queued_messages').select('turn_id')).length,
      0,
      "the waiting row went with the turn's start",
    );
    await gateways.kill();

    await gateways.start();
    await journalEmpty();
    assert.equal(llm.requests.length, requestsBefore + 2, 'each question answered once');
    const texts = botMessages(discord, threadId).map((message) => message.content);
    assert.equal(texts.filter((text) => text === 'The follow-up, answered.').length, 1);
    assert.equal(
      (await history(threadId)).filter((content) => content === 'the follow-up that waits').length,
      1,
      'the message stored once',
    );
  });
});
