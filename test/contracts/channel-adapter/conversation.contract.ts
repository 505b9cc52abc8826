/** Contract cases of a conversation: the answer streamed into a thread, long answers, rate limits, models and Stop. */
import { it } from 'node:test';
import assert from 'node:assert/strict';
import { lacks, modelOf, type ContractContext } from './driver.js';

export function conversationCases<U>(ctx: () => ContractContext<U>): void {
  it('starts a thread from a mention and streams the answer into it', async () => {
    const { d, owner } = ctx();
    d.llm.enqueue({ text: 'Hello from the contract.' });
    const threadId = await d.mention(owner, 'hello');
    await d.waitFor(() => d.texts(threadId).includes('Hello from the contract.'), 'answer in the thread');
  });

  it('edits a message as it streams and chunks an answer longer than one message', async (t) => {
    const { d, owner } = ctx();
    if (lacks(t, d, 'edits', 'chunking')) return;
    const words = Array.from({ length: 1500 }, (_, i) => `w${i} `);
    const long = words.join('').trim();
    const pieces = Array.from({ length: 30 }, (_, i) => words.slice(i * 50, i * 50 + 50).join(''));
    // 30 pieces 20 ms apart: the stream spans several edit intervals (100 ms in the harness), so every adapter edits.
    d.llm.enqueue({ text: pieces, delayMs: 20 });
    const threadId = await d.mention(owner, 'say a lot');
    const joined = (): string => d.texts(threadId).join(' ').replace(/\s+/g, ' ').trim();
    await d.waitFor(() => joined() === long, 'the whole long answer', 30_000);
    assert.ok(d.texts(threadId).length >= 2, 'split over several messages');
    assert.ok(d.edits(threadId) >= 1, 'messages were edited while streaming');
  });

  it('slows down on rate limits and still shows the complete answer', async (t) => {
    const { d, owner } = ctx();
    if (lacks(t, d, 'edits', 'rate-limits')) return;
    const words = Array.from({ length: 40 }, (_, i) => `r${i} `);
    d.llm.enqueue({ text: words, delayMs: 15 });
    const limited = d.rateLimitEdits(2);
    const threadId = await d.mention(owner, 'count');
    await d.waitFor(
      () => d.texts(threadId).some((text) => text.trim() === words.join('').trim()),
      'complete answer',
      30_000,
    );
    assert.ok(limited() >= 1, 'the platform answered with a rate limit at least once');
  });

  it('switches the thread’s model mid-thread; the next turn calls the other model', async () => {
    const { d, owner } = ctx();
    d.llm.enqueue({ text: 'On the first model.' });
    const threadId = await d.mention(owner, 'which model?');
    await d.waitFor(() => d.texts(threadId).includes('On the first model.'), 'first answer');
    assert.equal(modelOf(d.llm.requests.at(-1)?.body), 'fake-model');
    assert.match(await d.command(owner, threadId, 'model'), /uses `fake`[\s\S]*`other` \(other-model\)/);
    assert.match(
      await d.command(owner, threadId, 'model', 'nope'),
      /Unknown model "nope"\. Available models: `fake` \(fake-model\), `other` \(other-model\)/,
    );
    assert.match(await d.command(owner, threadId, 'model', 'other'), /now uses `other`/);
    d.llm.enqueue({ text: 'On the other model.' });
    d.say(owner, threadId, 'and now?');
    await d.waitFor(() => d.texts(threadId).includes('On the other model.'), 'answer from the other model');
    assert.equal(modelOf(d.llm.requests.at(-1)?.body), 'other-model');
    assert.match(await d.command(owner, threadId, 'status'), /Model: other/);
  });

  it('shows Stop while the turn runs: a stranger is refused, the owner’s click cancels it and the button goes', async (t) => {
    const { d, owner, stranger } = ctx();
    if (lacks(t, d, 'stop-button', 'others')) return;
    d.llm.enqueue({ text: ['Working on it', ' for a long time'], hang: true });
    const threadId = await d.mention(owner, 'take your time');
    await d.waitFor(() => d.hasStop(threadId), 'Stop button on the live message');
    const refused = d.clickStop(threadId, stranger);
    assert.match(await d.waitFor(() => refused.reply(), 'stranger refusal'), /Only the owner/);
    assert.ok(d.hasStop(threadId), 'the button stays for the owner');
    const stopped = d.clickStop(threadId, owner);
    assert.match(await d.waitFor(() => stopped.reply(), 'stop reply'), /Cancelling/);
    await d.waitFor(() => d.texts(threadId).some((text) => /Cancelled/.test(text)), 'cancelled notice');
    await d.waitFor(() => !d.hasStop(threadId), 'Stop button removed');
    assert.ok(d.texts(threadId).includes('Working on it for a long time'), 'the partial answer stays');
  });
}
