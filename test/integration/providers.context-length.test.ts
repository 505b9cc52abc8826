/** Context-length rejections through the real SDKs: flagged as `data.contextLength`, never copying vendor text, not retried. */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createAnthropicProvider } from '../../src/agent/providers/anthropic/anthropic-provider.js';
import type { ModelProvider, ModelRequest } from '../../src/agent/providers/model-provider.js';
import { createOpenAIProvider } from '../../src/agent/providers/openai/openai-provider.js';
import { streamWithRetries } from '../../src/agent/providers/with-retries.js';
import { ProviderError } from '../../src/shared/errors.js';
import { startFakeLlmServer, type FakeLlmServer, type ScriptedResponse } from '../fakes/fake-llm-server.js';

const request: ModelRequest = {
  model: 'fake-model',
  messages: [{ role: 'user', content: 'hello' }],
  tools: [],
  maxTokens: 1000,
};

async function failure(provider: ModelProvider): Promise<ProviderError> {
  try {
    for await (const part of streamWithRetries(provider, request, {
      signal: new AbortController().signal,
      baseDelayMs: 1,
    }))
      void part;
  } catch (error) {
    assert.ok(error instanceof ProviderError, `expected a ProviderError, got ${String(error)}`);
    return error;
  }
  assert.fail('expected the stream to fail');
}

interface Case {
  what: string;
  script: ScriptedResponse;
  contextLength: boolean;
}

const SECRET_TEXT = 'user-secret-7f3a';

const cases: Record<'openai' | 'anthropic', Case[]> = {
  openai: [
    {
      what: 'OpenAI code context_length_exceeded',
      script: {
        status: 400,
        errorCode: 'context_length_exceeded',
        errorParam: 'messages',
        errorMessage: `This model's maximum context length is 128000 tokens. ${SECRET_TEXT}`,
      },
      contextLength: true,
    },
    {
      what: 'a vLLM message without a code',
      script: {
        status: 400,
        errorType: 'BadRequestError',
        errorMessage: `This model's maximum context length is 32768 tokens. However, you requested 40000 tokens. ${SECRET_TEXT}`,
      },
      contextLength: true,
    },
    {
      what: 'llama.cpp type exceed_context_size_error',
      script: {
        status: 400,
        errorType: 'exceed_context_size_error',
        errorMessage: `the request exceeds the available context size ${SECRET_TEXT}`,
      },
      contextLength: true,
    },
    {
      what: 'an unrelated 400',
      script: { status: 400, errorParam: 'messages', errorMessage: `Invalid value for 'content' ${SECRET_TEXT}` },
      contextLength: false,
    },
  ],
  anthropic: [
    {
      what: 'prompt is too long',
      script: { status: 400, errorMessage: `prompt is too long: 208310 tokens > 200000 maximum ${SECRET_TEXT}` },
      contextLength: true,
    },
    {
      what: 'input length and max_tokens exceed context limit',
      script: {
        status: 400,
        errorMessage: `input length and \`max_tokens\` exceed context limit: 188240 + 21333 > 200000 ${SECRET_TEXT}`,
      },
      contextLength: true,
    },
    {
      what: 'an unrelated invalid_request_error',
      script: { status: 400, errorMessage: `messages: roles must alternate ${SECRET_TEXT}` },
      contextLength: false,
    },
    {
      what: 'a context phrase in another error type',
      script: { status: 400, errorType: 'api_error', errorMessage: `prompt is too long ${SECRET_TEXT}` },
      contextLength: false,
    },
  ],
};

const makers = {
  openai: (fake: FakeLlmServer): ModelProvider => createOpenAIProvider({ apiKey: 'sk-test', baseUrl: fake.url }),
  anthropic: (fake: FakeLlmServer): ModelProvider =>
    createAnthropicProvider({ apiKey: 'sk-test', baseUrl: fake.origin }),
};

for (const vendor of ['openai', 'anthropic'] as const) {
  describe(`${vendor} context-length errors`, () => {
    let fake: FakeLlmServer;
    let provider: ModelProvider;
    before(async () => {
      fake = await startFakeLlmServer();
      provider = makers[vendor](fake);
    });
    after(async () => {
      await fake.close();
    });

    for (const entry of cases[vendor]) {
      it(`${entry.contextLength ? 'flags' : 'does not flag'} ${entry.what}, without copying the vendor text and without retrying`, async () => {
        const before = fake.requests.length;
        fake.enqueue(entry.script);
        const error = await failure(provider);
        assert.equal(error.status, 400);
        assert.equal(error.retryable, false);
        assert.equal(error.data?.['contextLength'] === true, entry.contextLength);
        assert.ok(!error.message.includes(SECRET_TEXT));
        assert.ok(!JSON.stringify(error.data).includes(SECRET_TEXT));
        assert.equal(fake.requests.length - before, 1);
      });
    }
  });
}
