/** End to end over bolt in Socket Mode and the fake Slack: mentions, threads, streamed answers, chunking, ordering. */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { CHANNEL, SlackHarness } from '../fakes/fake-slack-harness.js';
import { BOT_USER_ID } from '../fakes/fake-slack.js';

const fences = (text: string): number => text.split('```').length - 1;

describe('slack conversation', () => {
  let h: SlackHarness;
  before(async () => {
    h = await SlackHarness.start();
  });
  after(async () => {
    await h.close();
  });

  it('connects with the bot and app tokens over Socket Mode', () => {
    assert.equal(h.fake.connections, 1);
    assert.ok(h.fake.callsOf('auth.test').every((c) => c.token === h.fake.botToken));
    assert.equal(h.fake.callsOf('apps.connections.open')[0]?.token, h.fake.appToken);
  });

  it('answers a mention in a thread under the user’s message, streamed by post + updates', async () => {
    const { user } = await h.linkedUser('U0ALICE', 'alice');
    h.llm.enqueue({ text: ['Hello ', 'Alice, ', 'nice to ', 'meet you.'], delayMs: 60 });
    const { threadTs, envelopes } = h.mention(user, 'hi there');
    const answer = await h.fake.waitFor(
      () => h.textReplies(threadTs).find((m) => m.text === 'Hello Alice, nice to meet you.'),
      20_000,
      'answer',
    );
    assert.equal(answer.threadTs, threadTs, 'the answer is in the thread of the mention');
    assert.equal(h.textReplies(threadTs).length, 1);
    assert.ok(answer.history.length >= 2, 'the answer was posted, then updated while streaming');
    assert.ok(
      envelopes.every((id) => h.fake.acks.has(id)),
      'every envelope was acknowledged',
    );
    const last = JSON.stringify((h.llm.requests[0]?.body as { messages: unknown[] }).messages.at(-1));
    assert.match(last, /hi there/);
    assert.doesNotMatch(last, new RegExp(BOT_USER_ID), 'the bot mention is stripped');
    assert.equal(h.llm.requests.length, 1, 'the app_mention twin of the message started nothing');
    const posts = h.fake.callsOf('chat.postMessage').filter((c) => c.body.thread_ts === threadTs);
    assert.ok(posts.every((c) => c.body.channel === CHANNEL && c.token === h.fake.botToken));
  });

  it('splits a long answer with code blocks into messages with balanced fences that add up to the answer', async () => {
    const { user } = await h.linkedUser('U0BOB', 'bob');
    const block = [
      '```ts',
      ...Array.from({ length: 80 }, (_, i) => `const value${i} = ${i} * 2; // a line of code`),
      '```',
    ].join('\n');
    const prose = Array.from({ length: 20 }, (_, i) => `Paragraph ${i} explains the code above in plain words.`).join(
      '\n',
    );
    const answer = [prose, block, prose, block, prose, block].join('\n');
    assert.ok(answer.length > 12_000);
    h.llm.enqueue({ text: answer.match(/[\s\S]{1,300}/g) ?? [] });
    const { threadTs } = h.mention(user, 'explain the code');
    const visible = (text: string): string => text.replace(/```\w*/g, '').replace(/\s/g, '');
    const shown = (): string =>
      h
        .textReplies(threadTs)
        .map((m) => m.text)
        .join('\n');
    await h.fake.waitFor(() => visible(shown()) === visible(answer), 30_000, 'final edits');
    assert.ok(h.textReplies(threadTs).length >= 4);
    for (const message of h.textReplies(threadTs)) {
      assert.ok(message.text.length <= 4_000);
      assert.equal(fences(message.text) % 2, 0, 'every message has balanced code fences');
    }
  });

  it('answers a message sent during a running turn after the first one, in order', async () => {
    const { user } = await h.linkedUser('U0CLEO', 'cleo');
    h.llm.enqueue(
      { text: ['One ', 'moment, ', 'first ', 'answer ', 'done.'], delayMs: 150 },
      { text: 'Second answer.' },
    );
    const { threadTs } = h.mention(user, 'first question');
    await h.fake.waitFor(() => h.textReplies(threadTs).length > 0, 20_000, 'first answer streaming');
    const { message: second } = h.fake.userMessage(user, CHANNEL, 'second question', threadTs);
    await h.fake.waitFor(() => second.reactions.includes('hourglass_flowing_sand'), 15_000, 'queued reaction');
    await h.fake.waitFor(
      () => h.textReplies(threadTs).find((m) => m.text === 'Second answer.'),
      20_000,
      'second answer',
    );
    assert.deepEqual(
      h.textReplies(threadTs).map((m) => m.text),
      ['One moment, first answer done.', 'Second answer.'],
    );
    const history = JSON.stringify(h.llm.requests.at(-1)?.body);
    assert.ok(history.indexOf('first question') < history.indexOf('One moment, first answer done.'));
    assert.ok(history.indexOf('One moment, first answer done.') < history.indexOf('second question'));
  });

  it('ignores bot messages, edits and messages in unknown threads, and hints unlinked users', async () => {
    const before = h.llm.requests.length;
    const { user } = await h.linkedUser('U0DAN', 'dan');
    const events = h.fake.state.messageEvents(
      h.fake.state.addMessage({ channel: CHANNEL, user: user.id, text: `<@${BOT_USER_ID}> edited` }),
      'channel',
    );
    const edit = { ...events[0], event: { ...(events[0]?.event as object), subtype: 'message_changed' } };
    const fromBot = {
      ...events[0],
      event: { ...(events[0]?.event as object), ts: '1700000999.000001', bot_id: 'B0OTHER' },
    };
    const ids = [h.fake.send('events_api', edit, false), h.fake.send('events_api', fromBot, false)];
    h.fake.userMessage(user, CHANNEL, 'not for the bot', '1700000000.999999');
    const stranger = h.fake.user('U0EVE', 'eve');
    h.fake.userMessage(stranger, CHANNEL, `<@${BOT_USER_ID}> hello?`);
    await h.fake.waitFor(
      () => h.fake.state.topLevel(CHANNEL).find((m) => m.user === BOT_USER_ID && m.text.includes('/sandpiper link')),
      15_000,
      'link hint',
    );
    await h.fake.waitFor(() => ids.every((id) => h.fake.acks.has(id)), 15_000, 'acks');
    assert.equal(h.llm.requests.length, before, 'nothing reached the model');
  });
});
