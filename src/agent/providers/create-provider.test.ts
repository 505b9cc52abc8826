import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ConfigError } from '../../shared/errors.js';
import { createProvider } from './create-provider.js';

const base = { model: 'gpt-x', context_window: 64000, max_tokens: 4000, supports_vision: true };

describe('createProvider', () => {
  it('builds the provider named by the config with the configured capabilities', () => {
    const openai = createProvider({ ...base, provider: 'openai', base_url: 'http://127.0.0.1:9/v1' });
    assert.equal(openai.id, 'openai');
    assert.deepEqual(openai.capabilities('gpt-x'), {
      contextWindow: 64000,
      maxOutputTokens: 4000,
      supportsVision: true,
    });
    assert.deepEqual(openai.capabilities('gpt-x-2025-01-01'), {
      contextWindow: 64000,
      maxOutputTokens: 4000,
      supportsVision: true,
    });
    assert.equal(openai.capabilities('other').supportsVision, false);
    const anthropic = createProvider({ ...base, provider: 'anthropic', api_key: 'k' });
    assert.equal(anthropic.id, 'anthropic');
  });

  it('rejects an Anthropic entry without an API key, naming the key', () => {
    assert.throws(
      () => createProvider({ ...base, provider: 'anthropic' }, { alias: 'claude' }),
      (error: unknown) => {
        return error instanceof ConfigError && error.message.includes('models.claude.api_key');
      },
    );
  });
});
