/**
 * A stalled and a hung model call end with a note in the thread, not endless typing: the real OpenAI and Anthropic
 * providers (their SDKs over real sockets to the fake LLM server) behind the real gateway on the recording adapter.
 * Moved from discord.model-timeouts (through discord.js): what a thread shows is the gateway's; the Discord adapter's
 * posts and edits are covered by its contract run (channel-adapter.discord.test.ts).
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startFakeLlmServer, type FakeLlmServer } from '../fakes/fake-llm-server.js';
import { person } from '../fakes/recording-adapter.js';
import { startRecordingGateway, until, type RecordingGateway } from '../helpers/recording-gateway.js';

const vendors = {
  openai: (llm: FakeLlmServer) => ({ provider: 'openai', base_url: llm.url }),
  anthropic: (llm: FakeLlmServer) => ({ provider: 'anthropic', base_url: llm.origin }),
};
const CHANNEL = 'chan-timeouts';

/** The text of every request the fake LLM received from `first` on (to see what history the model was given). */
function requestText(llm: FakeLlmServer, first: number): string {
  return llm.requests
    .slice(first)
    .map((request) => JSON.stringify(request.body))
    .join('\n');
}

for (const [vendor, pointAt] of Object.entries(vendors)) {
  describe(`model timeouts (${vendor})`, () => {
    let llm: FakeLlmServer;
    let fixture: RecordingGateway;
    let next = 0;
    before(async () => {
      llm = await startFakeLlmServer();
      const model = {
        ...pointAt(llm),
        api_key: 'test-key',
        model: 'fake-model',
        first_token_timeout_s: 0.3,
        stream_idle_timeout_s: 0.3,
      };
      fixture = await startRecordingGateway(`sp-timeouts-${vendor}-`, {}, { editIntervalMs: 50 }, {}, model);
    });
    after(async () => {
      await fixture.close();
      await llm.close();
    });

    /** A new linked user mentions the bot in the channel; resolves with the user and the new thread's id. */
    async function mention(text: string): Promise<{ user: ReturnType<typeof person>; threadId: string }> {
      next += 1;
      const user = person(`p-${vendor}-${next}`);
      await fixture.db.stores.users.link(
        'fake',
        user.id,
        (await fixture.db.stores.users.createUser(`u-${vendor}-${next}`)).userId,
      );
      const threads = fixture.adapter.threads.length;
      void fixture.adapter.deliver({
        type: 'message',
        user,
        conversation: { kind: 'channel', channelId: CHANNEL },
        messageId: `m-${vendor}-${next}`,
        text,
        mentioned: true,
      });
      const thread = await until(() => fixture.adapter.threads[threads], 'the new thread');
      return { user, threadId: thread.id };
    }
    const texts = (threadId: string): string[] => fixture.adapter.texts(threadId);
    /** What the thread shows, an error as `error: <message>` (Discord prints it as **Error:**) and a notice with its text. */
    const said = (threadId: string): string[] =>
      fixture.adapter.shown
        .filter((shown) => shown.channelId === threadId)
        .map(({ message }) =>
          message.kind === 'text'
            ? message.text
            : message.kind === 'error'
              ? `error: ${message.message}`
              : message.kind === 'notice'
                ? `notice ${message.code}: ${message.text ?? ''}`
                : message.kind,
        );

    it('a stream that stalls mid-answer keeps the partial answer, adds a note, and is not retried', async () => {
      const first = llm.requests.length;
      llm.enqueue({ text: ['Half an ', 'answer'], hang: true });
      const { user, threadId } = await mention('tell me everything');
      const note = await until(
        () => said(threadId).find((line) => line.includes('The model stopped sending')),
        'stall note',
      );
      assert.match(note, /nothing for 0\.3 s/);
      assert.ok(
        texts(threadId).some((text) => text.includes('Half an answer')),
        'the partial answer stays in the thread',
      );
      assert.equal(llm.requests.length - first, 1, 'a call that already streamed text is not retried');
      await llm.waitFor(() => llm.requests[first]?.clientClosed);

      // The next turn's history holds the partial answer, so the model knows what the user saw.
      llm.enqueue({ text: 'Picking up again.' });
      void fixture.adapter.deliver({
        type: 'message',
        user,
        conversation: { kind: 'thread', channelId: threadId },
        messageId: `m-${vendor}-go-on`,
        text: 'go on',
        mentioned: false,
      });
      await until(() => texts(threadId).includes('Picking up again.'), 'next answer');
      assert.match(requestText(llm, first + 1), /Half an answer/);
    });

    it('a request that hangs before headers is aborted and retried, and the retry answers', async () => {
      const first = llm.requests.length;
      llm.enqueue({ hangBeforeHeaders: true }, { text: 'Answer after the retry.' });
      const { threadId } = await mention('are you there?');
      await until(() => texts(threadId).includes('Answer after the retry.'), 'retried answer');
      assert.equal(llm.requests.length - first, 2, 'the hung call was retried once');
      assert.equal(llm.requests[first]?.clientClosed, true, 'the hung request was closed');
      assert.equal(
        said(threadId).some((line) => line.startsWith('error: ')),
        false,
      );
    });

    it('a request that hangs on every attempt ends the turn with a note', async () => {
      const first = llm.requests.length;
      llm.enqueue(...Array.from({ length: 4 }, () => ({ hangBeforeHeaders: true })));
      const { threadId } = await mention('hello?');
      const note = await until(() => said(threadId).find((line) => line.startsWith('error: ')), 'timeout note');
      assert.match(note, /The model did not respond within 0\.3 s, even after retrying/);
      assert.equal(llm.requests.length - first, 4, 'every attempt of the retry policy was made');
      assert.equal(llm.pending, 0);
    });
  });
}
