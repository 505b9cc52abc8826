/** End to end over the real discord.js client and the fake Discord: mentions, threads, streamed answers, ordering. */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { CHANNEL_ID, DiscordHarness } from '../fakes/fake-discord-harness.js';

const fences = (text: string): number => text.split('```').length - 1;

describe('discord conversation', () => {
  let h: DiscordHarness;
  before(async () => {
    h = await DiscordHarness.start();
  });
  after(async () => {
    await h.close();
  });

  it('opens a thread from the mention and streams the model answer into it', async () => {
    const { user } = await h.linkedUser('400000000000000001', 'alice');
    h.llm.enqueue({ text: ['Hello ', 'Alice, ', 'nice to ', 'meet you.'] });
    const { threadId, message } = await h.mention(user, 'hi there');
    const thread = h.fake.state.channels.get(threadId);
    assert.equal(thread?.parent_id, CHANNEL_ID);
    assert.equal(thread?.name, 'hi there');
    const answer = await h.fake.waitFor(
      () => h.textMessages(threadId).find((m) => m.content === 'Hello Alice, nice to meet you.'),
      20_000,
      'answer',
    );
    assert.ok(answer);
    assert.equal(message.content.includes('<@'), true);
    const request = h.llm.requests[0]?.body as { messages: { role: string; content: unknown }[] };
    assert.ok(JSON.stringify(request.messages.at(-1)).includes('hi there'));
    assert.ok(!JSON.stringify(request.messages.at(-1)).includes('<@'));
    assert.ok(
      h.fake.requests.some((r) => r.method === 'POST' && r.path === `/channels/${threadId}/typing`),
      'typing indicator shown',
    );
    const posts = h.fake.requests.filter((r) => r.method === 'POST' && r.path === `/channels/${threadId}/messages`);
    for (const post of posts)
      assert.deepEqual((post.body as { allowed_mentions: unknown }).allowed_mentions, { parse: [] });
  });

  it('splits a long answer with code blocks into valid messages whose text adds up to the answer', async () => {
    const { user } = await h.linkedUser('400000000000000002', 'bob');
    const block = [
      '```ts',
      ...Array.from({ length: 60 }, (_, i) => `const value${i} = ${i} * 2; // a line of code`),
      '```',
    ].join('\n');
    const prose = Array.from({ length: 20 }, (_, i) => `Paragraph ${i} explains the code above in plain words.`).join(
      '\n',
    );
    const answer = [prose, block, prose, block, prose, block].join('\n');
    assert.ok(answer.length > 9000);
    const deltas = answer.match(/[\s\S]{1,200}/g) ?? [];
    h.llm.enqueue({ text: deltas });
    const { threadId } = await h.mention(user, 'explain the code');
    const visible = (text: string): string => text.replace(/```\w*/g, '').replace(/\s/g, '');
    const shown = (): string =>
      h
        .textMessages(threadId)
        .map((m) => m.content)
        .join('\n');
    await h.fake.waitFor(() => visible(shown()) === visible(answer), 30_000, 'final edits');
    assert.ok(h.textMessages(threadId).length >= 5);
    for (const message of h.textMessages(threadId)) {
      assert.ok(message.content.length <= 2000);
      assert.equal(fences(message.content) % 2, 0, 'every message has balanced code fences');
    }
  });

  it('answers a message sent during a running turn after the first one, in order', async () => {
    const { user } = await h.linkedUser('400000000000000003', 'cleo');
    h.llm.enqueue(
      { text: ['One ', 'moment, ', 'first ', 'answer ', 'done.'], delayMs: 150 },
      { text: 'Second answer.' },
    );
    const { threadId } = await h.mention(user, 'first question');
    await h.fake.waitFor(() => h.textMessages(threadId).length > 0, 20_000, 'first answer streaming');
    const second = h.fake.state.injectMessage(threadId, user, 'second question');
    await h.fake.waitFor(() => second.reactions.includes('⏳'), 15_000, 'queued reaction');
    await h.fake.waitFor(
      () => h.textMessages(threadId).find((m) => m.content === 'Second answer.'),
      20_000,
      'second answer',
    );
    const texts = h.textMessages(threadId).map((m) => m.content);
    assert.deepEqual(texts, ['One moment, first answer done.', 'Second answer.']);
    const history = JSON.stringify(h.llm.requests.at(-1)?.body);
    assert.ok(history.indexOf('first question') < history.indexOf('One moment, first answer done.'));
    assert.ok(history.indexOf('One moment, first answer done.') < history.indexOf('second question'));
  });
});
