/** End to end through discord.js: a stalled and a hung model call end with a note in the thread, not endless typing. */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { DiscordHarness } from '../fakes/fake-discord-harness.js';

const vendors = {
  openai: (h: DiscordHarness): Record<string, unknown> => ({ 'models.fake.provider': 'openai', 'models.fake.base_url': h.llm.url }),
  anthropic: (h: DiscordHarness): Record<string, unknown> => ({ 'models.fake.provider': 'anthropic', 'models.fake.base_url': h.llm.origin }),
};

/** The text of every request the fake LLM received from `first` on (to see what history the model was given). */
function requestText(h: DiscordHarness, first: number): string {
  return h.llm.requests.slice(first).map((request) => JSON.stringify(request.body)).join('\n');
}

describe('discord: model timeouts', () => {
  const flags: Record<string, unknown> = { 'models.fake.first_token_timeout_s': 0.3, 'models.fake.stream_idle_timeout_s': 0.3 };
  let h: DiscordHarness;
  before(async () => {
    h = await DiscordHarness.start({ editIntervalMs: 50, flags });
  });
  after(async () => {
    await h.close();
  });

  for (const [vendor, pointAt] of Object.entries(vendors)) {
    describe(vendor, () => {
      before(async () => {
        Object.assign(flags, pointAt(h));
        await h.crash();
        await h.boot();
      });

      it('a stream that stalls mid-answer keeps the partial answer, adds a note, and is not retried', async () => {
        const { user } = await h.linkedUser(vendor === 'openai' ? '400000000000000061' : '400000000000000062', `stall-${vendor}`);
        const first = h.llm.requests.length;
        h.llm.enqueue({ text: ['Half an ', 'answer'], hang: true });
        const { threadId } = await h.mention(user, 'tell me everything');
        const note = await h.fake.waitFor(() => h.textMessages(threadId).find((m) => m.content.includes('The model stopped sending')), 20_000, 'stall note');
        assert.match(note.content, /nothing for 0\.3 s/);
        assert.ok(h.textMessages(threadId).some((m) => m.content.includes('Half an answer')), 'the partial answer stays in the thread');
        assert.equal(h.llm.requests.length - first, 1, 'a call that already streamed text is not retried');
        await h.llm.waitFor(() => h.llm.requests[first]?.clientClosed);

        // The next turn's history holds the partial answer, so the model knows what the user saw.
        h.llm.enqueue({ text: 'Picking up again.' });
        h.fake.state.injectMessage(threadId, user, 'go on');
        await h.fake.waitFor(() => h.textMessages(threadId).find((m) => m.content === 'Picking up again.'), 20_000, 'next answer');
        assert.match(requestText(h, first + 1), /Half an answer/);
      });

      it('a request that hangs before headers is aborted and retried, and the retry answers', async () => {
        const { user } = await h.linkedUser(vendor === 'openai' ? '400000000000000063' : '400000000000000064', `hang-${vendor}`);
        const first = h.llm.requests.length;
        h.llm.enqueue({ hangBeforeHeaders: true }, { text: 'Answer after the retry.' });
        const { threadId } = await h.mention(user, 'are you there?');
        await h.fake.waitFor(() => h.textMessages(threadId).find((m) => m.content === 'Answer after the retry.'), 20_000, 'retried answer');
        assert.equal(h.llm.requests.length - first, 2, 'the hung call was retried once');
        assert.equal(h.llm.requests[first]?.clientClosed, true, 'the hung request was closed');
        assert.equal(h.textMessages(threadId).some((m) => m.content.startsWith('**Error:**')), false);
      });

      it('a request that hangs on every attempt ends the turn with a note', async () => {
        const { user } = await h.linkedUser(vendor === 'openai' ? '400000000000000065' : '400000000000000066', `dead-${vendor}`);
        const first = h.llm.requests.length;
        h.llm.enqueue(...Array.from({ length: 4 }, () => ({ hangBeforeHeaders: true })));
        const { threadId } = await h.mention(user, 'hello?');
        const note = await h.fake.waitFor(() => h.textMessages(threadId).find((m) => m.content.startsWith('**Error:**')), 30_000, 'timeout note');
        assert.match(note.content, /The model did not respond within 0\.3 s, even after retrying/);
        assert.equal(h.llm.requests.length - first, 4, 'every attempt of the retry policy was made');
        assert.equal(h.llm.pending, 0);
      });
    });
  }
});
