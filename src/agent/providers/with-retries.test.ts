import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { isAbortError } from '../../shared/abort.js';
import { ProviderError } from '../../shared/errors.js';
import type { ModelProvider, ModelRequest, ModelStreamPart } from './model-provider.js';
import { retryDelayMs, streamWithRetries } from './with-retries.js';

type Step = ModelStreamPart[] | ProviderError | { parts: ModelStreamPart[]; error: ProviderError };

/** A port fake: one scripted outcome per stream() call. */
function scriptedProvider(steps: Step[]): ModelProvider & { calls: number } {
  const provider = {
    id: 'fake',
    calls: 0,
    capabilities: () => ({ contextWindow: 1000, maxOutputTokens: 100, supportsVision: false }),
    async *stream(): AsyncGenerator<ModelStreamPart> {
      const step = steps[provider.calls++];
      if (step === undefined) throw new Error('under-scripted');
      if (step instanceof ProviderError) throw step;
      const parts = Array.isArray(step) ? step : step.parts;
      for (const part of parts) yield part;
      if (!Array.isArray(step)) throw step.error;
    },
  };
  return provider;
}

const request: ModelRequest = { model: 'm', messages: [{ role: 'user', content: 'hi' }], tools: [] };
const done: ModelStreamPart[] = [
  { type: 'text-delta', text: 'ok' },
  { type: 'finish', finishReason: 'stop' },
];

async function drain(parts: AsyncIterable<ModelStreamPart>): Promise<ModelStreamPart[]> {
  const out: ModelStreamPart[] = [];
  for await (const part of parts) out.push(part);
  return out;
}

describe('streamWithRetries', () => {
  it('retries retryable failures before any output and then succeeds', async () => {
    const provider = scriptedProvider([new ProviderError('x', { status: 503 }), new ProviderError('y'), done]);
    const parts = await drain(
      streamWithRetries(provider, request, { signal: new AbortController().signal, baseDelayMs: 1 }),
    );
    assert.deepEqual(parts, done);
    assert.equal(provider.calls, 3);
  });

  it('does not retry a non-retryable error', async () => {
    const provider = scriptedProvider([new ProviderError('bad', { status: 400 }), done]);
    await assert.rejects(
      drain(streamWithRetries(provider, request, { signal: new AbortController().signal, baseDelayMs: 1 })),
      { status: 400 },
    );
    assert.equal(provider.calls, 1);
  });

  it('does not retry once a part was yielded', async () => {
    const provider = scriptedProvider([
      { parts: [{ type: 'text-delta', text: 'par' }], error: new ProviderError('cut') },
      done,
    ]);
    await assert.rejects(
      drain(streamWithRetries(provider, request, { signal: new AbortController().signal, baseDelayMs: 1 })),
      ProviderError,
    );
    assert.equal(provider.calls, 1);
  });

  it('stops after maxAttempts with the last error', async () => {
    const provider = scriptedProvider([
      new ProviderError('a', { status: 500 }),
      new ProviderError('b', { status: 502 }),
    ]);
    await assert.rejects(
      drain(
        streamWithRetries(provider, request, { signal: new AbortController().signal, maxAttempts: 2, baseDelayMs: 1 }),
      ),
      { status: 502 },
    );
  });

  it('aborts during the backoff sleep with an abort error', async () => {
    const controller = new AbortController();
    const provider = scriptedProvider([new ProviderError('a', { status: 500, retryAfterMs: 60_000 }), done]);
    const pending = drain(
      streamWithRetries(provider, request, {
        signal: controller.signal,
        maxDelayMs: 60_000,
        onRetry: () => controller.abort(),
      }),
    );
    await assert.rejects(pending, (error: unknown) => isAbortError(error));
    assert.equal(provider.calls, 1);
  });

  it('computes full-jitter backoff and caps retry-after', () => {
    const options = { signal: new AbortController().signal, baseDelayMs: 100, maxDelayMs: 1000, random: () => 0.5 };
    assert.equal(retryDelayMs(new ProviderError('x'), 1, options), 50);
    assert.equal(retryDelayMs(new ProviderError('x'), 3, options), 200);
    assert.equal(retryDelayMs(new ProviderError('x'), 10, options), 500);
    assert.equal(retryDelayMs(new ProviderError('x', { retryAfterMs: 250 }), 1, options), 250);
    assert.equal(retryDelayMs(new ProviderError('x', { retryAfterMs: 99_000 }), 1, options), 1000);
  });
});
