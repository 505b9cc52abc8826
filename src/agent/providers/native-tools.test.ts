import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { resolveNativeTools } from './native-tools.js';

describe('resolveNativeTools', () => {
  it('auto follows the model tables per provider', () => {
    assert.deepEqual(resolveNativeTools({ provider: 'anthropic', model: 'claude-opus-4-6' }), {
      toolSearch: true,
      webSearch: true,
    });
    assert.deepEqual(resolveNativeTools({ provider: 'anthropic', model: 'anthropic/claude-sonnet-4-5-20250929' }), {
      toolSearch: true,
      webSearch: true,
    });
    assert.deepEqual(resolveNativeTools({ provider: 'anthropic', model: 'claude-sonnet-4-20250514' }), {
      toolSearch: false,
      webSearch: true,
    });
    assert.deepEqual(resolveNativeTools({ provider: 'anthropic', model: 'claude-3-haiku-20240307' }), {
      toolSearch: false,
      webSearch: false,
    });
    assert.deepEqual(resolveNativeTools({ provider: 'openai', model: 'gpt-5-search-api-2025-10-14' }), {
      toolSearch: false,
      webSearch: true,
    });
    assert.deepEqual(resolveNativeTools({ provider: 'openai', model: 'gpt-4o-mini-search-preview' }), {
      toolSearch: false,
      webSearch: true,
    });
    assert.deepEqual(
      resolveNativeTools({ provider: 'openai', model: 'claude-opus-4-6' }),
      { toolSearch: false, webSearch: false },
      'an OpenAI-compatible proxy',
    );
  });

  it('on and off override the table', () => {
    assert.deepEqual(
      resolveNativeTools({
        provider: 'anthropic',
        model: 'claude-opus-4-6',
        native_tool_search: 'off',
        native_web_search: 'off',
      }),
      { toolSearch: false, webSearch: false },
    );
    assert.deepEqual(
      resolveNativeTools({
        provider: 'anthropic',
        model: 'my-claude',
        native_tool_search: 'on',
        native_web_search: 'on',
      }),
      { toolSearch: true, webSearch: true },
    );
    assert.deepEqual(resolveNativeTools({ provider: 'openai', model: 'local', native_web_search: 'on' }), {
      toolSearch: false,
      webSearch: true,
    });
  });
});
