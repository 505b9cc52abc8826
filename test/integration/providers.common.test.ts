/** Both model providers through their real SDKs against the fake LLM server: streaming, tools, errors, retries, cancel. */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startFakeLlmServer, type FakeLlmServer } from '../fakes/fake-llm-server.js';
import { createAnthropicProvider } from '../../src/agent/providers/anthropic/anthropic-provider.js';
import { createOpenAIProvider } from '../../src/agent/providers/openai/openai-provider.js';
import type { ModelProvider, ModelRequest, ModelStreamPart } from '../../src/agent/providers/model-provider.js';
import { streamWithRetries, type RetryInfo } from '../../src/agent/providers/with-retries.js';
import { isAbortError } from '../../src/shared/abort.js';
import { ProviderError } from '../../src/shared/errors.js';

const API_KEY = 'sk-test-secret-key-0123456789';

function request(overrides: Partial<ModelRequest> = {}): ModelRequest {
  return {
    model: 'test-model',
    messages: [
      { role: 'system', content: 'You are terse.' },
      { role: 'user', content: 'Weather in Paris?' },
    ],
    tools: [
      {
        name: 'get_weather',
        description: 'Weather by city',
        parameters: { type: 'object', properties: { city: { type: 'string' } } },
      },
    ],
    maxTokens: 4096,
    ...overrides,
  };
}

async function collect(parts: AsyncIterable<ModelStreamPart>): Promise<ModelStreamPart[]> {
  const out: ModelStreamPart[] = [];
  for await (const part of parts) out.push(part);
  return out;
}

function textOf(parts: readonly ModelStreamPart[]): string {
  return parts.map((part) => (part.type === 'text-delta' ? part.text : '')).join('');
}

function finishOf(parts: readonly ModelStreamPart[]): Extract<ModelStreamPart, { type: 'finish' }> {
  const last = parts.at(-1);
  assert.equal(last?.type, 'finish', 'stream must end with a finish part');
  return last as Extract<ModelStreamPart, { type: 'finish' }>;
}

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  assert.fail('expected a rejection');
}

const vendors = {
  openai: (fake: FakeLlmServer): ModelProvider => createOpenAIProvider({ apiKey: API_KEY, baseUrl: fake.url }),
  anthropic: (fake: FakeLlmServer): ModelProvider => createAnthropicProvider({ apiKey: API_KEY, baseUrl: fake.origin }),
};

for (const [vendor, makeProvider] of Object.entries(vendors)) {
  describe(`${vendor} provider over the wire`, () => {
    let fake: FakeLlmServer;
    let provider: ModelProvider;
    const signal = new AbortController().signal;

    before(async () => {
      fake = await startFakeLlmServer();
      provider = makeProvider(fake);
    });
    after(async () => {
      await fake.close();
    });

    it('streams a plain answer as several text deltas and reports usage', async () => {
      fake.enqueue({ text: ['It is ', 'sunny ', 'in Paris.'], usage: { inputTokens: 42, outputTokens: 7 } });
      const parts = await collect(provider.stream(request(), { signal }));
      const deltas = parts.filter((part) => part.type === 'text-delta');
      assert.equal(deltas.length, 3);
      assert.equal(textOf(parts), 'It is sunny in Paris.');
      const finish = finishOf(parts);
      assert.equal(finish.finishReason, 'stop');
      assert.deepEqual(finish.usage, { inputTokens: 42, outputTokens: 7 });
      const sent = fake.requests.at(-1);
      assert.equal(sent?.vendor, vendor);
      assert.equal(sent?.headers.authorization, `Bearer ${API_KEY}`);
      assert.equal((sent?.body as { stream?: unknown }).stream, true);
    });

    it('returns one complete tool call', async () => {
      fake.enqueue({
        text: 'Checking.',
        toolCalls: [{ id: 'call_1', name: 'get_weather', arguments: '{"city":"Paris"}' }],
      });
      const parts = await collect(provider.stream(request(), { signal }));
      const calls = parts.filter((part) => part.type === 'tool-call');
      assert.deepEqual(calls, [
        { type: 'tool-call', call: { id: 'call_1', name: 'get_weather', arguments: '{"city":"Paris"}' } },
      ]);
      assert.equal(finishOf(parts).finishReason, 'tool-calls');
      assert.equal(textOf(parts), 'Checking.');
    });

    it('returns two parallel tool calls in order', async () => {
      fake.enqueue({
        toolCalls: [
          { id: 'call_a', name: 'get_weather', arguments: '{"city":"Paris"}' },
          { id: 'call_b', name: 'get_weather', arguments: '{"city":"Oslo"}' },
        ],
      });
      const parts = await collect(provider.stream(request(), { signal }));
      const calls = parts.flatMap((part) => (part.type === 'tool-call' ? [part.call] : []));
      assert.deepEqual(calls, [
        { id: 'call_a', name: 'get_weather', arguments: '{"city":"Paris"}' },
        { id: 'call_b', name: 'get_weather', arguments: '{"city":"Oslo"}' },
      ]);
    });

    it('passes malformed tool-call arguments through raw', async () => {
      fake.enqueue({ toolCalls: [{ id: 'call_bad', name: 'get_weather', arguments: '{"city": "Par' }] });
      const parts = await collect(provider.stream(request(), { signal }));
      const call = parts.find((part) => part.type === 'tool-call');
      assert.deepEqual(call, {
        type: 'tool-call',
        call: { id: 'call_bad', name: 'get_weather', arguments: '{"city": "Par' },
      });
    });

    it('streams reasoning as reasoning deltas, separate from the answer', async () => {
      fake.enqueue({ reasoning: ['Paris is ', 'in France.'], text: 'Sunny.' });
      const parts = await collect(provider.stream(request({ reasoningEffort: 'low' }), { signal }));
      const reasoning = parts.flatMap((part) => (part.type === 'reasoning-delta' ? [part.text] : []));
      assert.deepEqual(reasoning, ['Paris is ', 'in France.']);
      assert.equal(textOf(parts), 'Sunny.');
    });

    it('retries a 429 after its retry-after and then streams the answer', async () => {
      const before = fake.requests.length;
      fake.enqueue({ status: 429, retryAfterMs: 30 }, { text: ['after ', 'retry'] });
      const retries: RetryInfo[] = [];
      const parts = await collect(
        streamWithRetries(provider, request(), { signal, baseDelayMs: 1, onRetry: (info) => retries.push(info) }),
      );
      assert.equal(fake.requests.length - before, 2);
      assert.equal(textOf(parts), 'after retry');
      assert.equal(retries.length, 1);
      assert.equal(retries[0]?.delayMs, 30);
      assert.equal(retries[0]?.error.status, 429);
    });

    it('gives up after the attempts with a retryable ProviderError on repeated 500s', async () => {
      const before = fake.requests.length;
      fake.enqueue({ status: 500 }, { status: 500 }, { status: 500 });
      const error = await rejection(
        collect(streamWithRetries(provider, request(), { signal, maxAttempts: 3, baseDelayMs: 1 })),
      );
      assert.ok(error instanceof ProviderError);
      assert.equal(error.status, 500);
      assert.equal(error.retryable, true);
      assert.equal(fake.requests.length - before, 3);
    });

    it('fails a 401 once, not retryable, without the API key in the message', async () => {
      const before = fake.requests.length;
      fake.enqueue({ status: 401, errorMessage: `Incorrect API key provided: ${API_KEY}` });
      const error = await rejection(collect(streamWithRetries(provider, request(), { signal, baseDelayMs: 1 })));
      assert.ok(error instanceof ProviderError);
      assert.equal(error.status, 401);
      assert.equal(error.retryable, false);
      assert.ok(!error.message.includes(API_KEY));
      assert.ok(!error.message.includes('sk-test'));
      assert.ok(!JSON.stringify(error.data ?? {}).includes(API_KEY));
      assert.equal(fake.requests.length - before, 1);
    });

    it('does not retry a stream that broke after text was already yielded', async () => {
      const before = fake.requests.length;
      fake.enqueue({ text: ['partial '], breakAfterText: true }, { text: 'must not be requested' });
      const seen: ModelStreamPart[] = [];
      const error = await rejection(
        (async () => {
          for await (const part of streamWithRetries(provider, request(), { signal, baseDelayMs: 1 })) seen.push(part);
        })(),
      );
      assert.ok(error instanceof ProviderError);
      assert.equal(error.retryable, true);
      assert.equal(textOf(seen), 'partial ');
      assert.equal(fake.requests.length - before, 1);
      assert.equal(fake.pending, 1);
      await collect(provider.stream(request(), { signal }));
    });

    it('stops promptly with an abort error when cancelled mid-stream, closing the connection', async () => {
      fake.enqueue({ text: ['first words'], hang: true });
      const controller = new AbortController();
      const seen: ModelStreamPart[] = [];
      const error = await rejection(
        (async () => {
          for await (const part of provider.stream(request(), { signal: controller.signal })) {
            seen.push(part);
            if (part.type === 'text-delta') controller.abort();
          }
        })(),
      );
      assert.ok(isAbortError(error), `expected an abort error, got ${String(error)}`);
      assert.equal(textOf(seen), 'first words');
      const record = fake.requests.at(-1);
      await fake.waitFor(() => record?.clientClosed === true);
    });

    it('throws an abort error without a request when the signal is already aborted', async () => {
      const before = fake.requests.length;
      const error = await rejection(collect(provider.stream(request(), { signal: AbortSignal.abort() })));
      assert.ok(isAbortError(error));
      assert.equal(fake.requests.length, before);
    });
  });
}
