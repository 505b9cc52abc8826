/** Model timeouts through both real SDKs against the fake LLM server: a hung request and a stalled stream are given up. */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startFakeLlmServer, type FakeLlmServer } from '../fakes/fake-llm-server.js';
import { createProvider } from '../../src/agent/providers/create-provider.js';
import type { ModelProvider, ModelRequest, ModelStreamPart } from '../../src/agent/providers/model-provider.js';
import { isStreamTimeout } from '../../src/agent/providers/stream-watchdog.js';
import { streamWithRetries, type RetryInfo } from '../../src/agent/providers/with-retries.js';
import { ProviderError } from '../../src/shared/errors.js';

const request: ModelRequest = {
  model: 'test-model',
  messages: [{ role: 'user', content: 'Hello?' }],
  tools: [],
  maxTokens: 256,
};

function textOf(parts: readonly ModelStreamPart[]): string {
  return parts.map((part) => (part.type === 'text-delta' ? part.text : '')).join('');
}

/** Collects the parts until the stream ends or throws; returns both. */
async function drain(parts: AsyncIterable<ModelStreamPart>): Promise<{ parts: ModelStreamPart[]; error: unknown }> {
  const out: ModelStreamPart[] = [];
  try {
    for await (const part of parts) out.push(part);
  } catch (error) {
    return { parts: out, error };
  }
  return { parts: out, error: undefined };
}

function timeoutPhase(error: unknown): unknown {
  assert.ok(error instanceof ProviderError, `expected a ProviderError, got ${String(error)}`);
  assert.ok(isStreamTimeout(error), `expected a timeout, got ${error.message}`);
  return error.data?.['phase'];
}

const vendors = {
  openai: (fake: FakeLlmServer, seconds: number): ModelProvider =>
    createProvider({
      provider: 'openai',
      model: 'test-model',
      base_url: fake.url,
      api_key: 'k',
      context_window: 8000,
      max_tokens: 256,
      supports_vision: false,
      first_token_timeout_s: seconds,
      stream_idle_timeout_s: seconds,
    }),
  anthropic: (fake: FakeLlmServer, seconds: number): ModelProvider =>
    createProvider({
      provider: 'anthropic',
      model: 'test-model',
      base_url: fake.origin,
      api_key: 'k',
      context_window: 8000,
      max_tokens: 256,
      supports_vision: false,
      first_token_timeout_s: seconds,
      stream_idle_timeout_s: seconds,
    }),
};

for (const [vendor, makeProvider] of Object.entries(vendors)) {
  describe(`${vendor} model timeouts over the wire`, () => {
    let fake: FakeLlmServer;
    let provider: ModelProvider;
    const signal = new AbortController().signal;

    before(async () => {
      fake = await startFakeLlmServer();
      provider = makeProvider(fake, 0.3);
    });
    after(async () => {
      await fake.close();
    });

    it('gives up a request that hangs before headers, closes it, and retries it', async () => {
      const first = fake.requests.length;
      fake.enqueue({ hangBeforeHeaders: true }, { text: ['second ', 'attempt'] });
      const retries: RetryInfo[] = [];
      const { parts, error } = await drain(
        streamWithRetries(provider, request, { signal, baseDelayMs: 1, onRetry: (info) => retries.push(info) }),
      );
      assert.equal(error, undefined);
      assert.equal(textOf(parts), 'second attempt');
      assert.equal(retries.length, 1, 'one retry after the timeout');
      assert.equal(timeoutPhase(retries[0]?.error), 'first-token');
      assert.equal(fake.requests.length - first, 2);
      await fake.waitFor(() => fake.requests[first]?.clientClosed, 5_000);
    });

    it('ends with a timeout error once every attempt hung', async () => {
      const first = fake.requests.length;
      fake.enqueue({ hangBeforeHeaders: true }, { hangBeforeHeaders: true });
      const { parts, error } = await drain(
        streamWithRetries(provider, request, { signal, baseDelayMs: 1, maxAttempts: 2 }),
      );
      assert.deepEqual(parts, []);
      assert.equal(timeoutPhase(error), 'first-token');
      assert.match((error as Error).message, new RegExp(`^${vendor}: no response within 0.3 s$`));
      // The second attempt's time-out can fire in the same loop turn as the fake's read of that request (both live in
      // this process, and a busy machine delays the turn): wait for the fake to have taken it in, so it is counted
      // here and not in the next test.
      await fake.waitFor(() => fake.requests.length - first >= 2, 5_000);
      assert.equal(fake.requests.length - first, 2, 'both attempts were made');
    });

    it('gives up a stream that stalls mid-answer without retrying (the text already went out)', async () => {
      const first = fake.requests.length;
      fake.enqueue({ text: ['Half an ', 'answer'], hang: true });
      const { parts, error } = await drain(streamWithRetries(provider, request, { signal, baseDelayMs: 1 }));
      assert.equal(textOf(parts), 'Half an answer');
      assert.equal(
        parts.some((part) => part.type === 'finish'),
        false,
        'a stalled stream never reports finished',
      );
      assert.equal(timeoutPhase(error), 'idle');
      assert.equal(fake.requests.length - first, 1, 'no retry after streamed text');
      await fake.waitFor(() => fake.requests[first]?.clientClosed, 5_000);
    });

    it('keeps a slow stream that never goes quiet for the idle limit', async () => {
      const slow = makeProvider(fake, 1);
      const words = Array.from({ length: 30 }, (_, i) => `w${i} `);
      fake.enqueue({ text: words, delayMs: 50 });
      const { parts, error } = await drain(slow.stream(request, { signal }));
      assert.equal(error, undefined);
      assert.equal(textOf(parts), words.join(''));
      assert.equal(parts.at(-1)?.type, 'finish');
    });
  });
}
