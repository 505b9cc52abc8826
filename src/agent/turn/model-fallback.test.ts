/** Which provider failures the fallback model answers, and the config check of `models.<alias>.fallback`. */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { loadConfig } from '../../config/index.js';
import { ProviderError } from '../../shared/errors.js';
import { connectionProviderError, httpProviderError } from '../providers/provider-errors.js';
import { isUnreachable } from './model-fallback.js';

describe('isUnreachable', () => {
  it('is true for a refused or cut connection, a timeout, 408, 429 and 5xx', () => {
    assert.equal(isUnreachable(connectionProviderError('openai', new Error('ECONNREFUSED'))), true);
    assert.equal(isUnreachable(connectionProviderError('anthropic', new Error('timeout'), true)), true);
    for (const status of [408, 429, 500, 502, 503, 529])
      assert.equal(isUnreachable(httpProviderError('openai', status, undefined)), true, String(status));
    assert.equal(isUnreachable(httpProviderError('anthropic', undefined, undefined, 'overloaded_error')), true);
  });

  it('is false for client errors, a prompt too long, and anything not from a provider', () => {
    for (const status of [400, 401, 403, 404, 413, 422])
      assert.equal(isUnreachable(httpProviderError('openai', status, undefined)), false, String(status));
    assert.equal(isUnreachable(httpProviderError('openai', 400, undefined, undefined, { contextLength: true })), false);
    assert.equal(isUnreachable(new ProviderError('bad', { retryable: false })), false);
    assert.equal(isUnreachable(new Error('ECONNREFUSED')), false);
  });
});

describe('models.<alias>.fallback', () => {
  const model = (extra: Record<string, unknown> = {}) => ({
    provider: 'openai',
    base_url: 'http://127.0.0.1:9/v1',
    model: 'm',
    ...extra,
  });

  it('must name another configured alias', () => {
    assert.throws(
      () => loadConfig({ cwd: '/', env: {}, flags: { models: { main: model({ fallback: 'nope' }) } } }),
      /models\.main\.fallback: must name another alias/,
    );
    assert.throws(
      () => loadConfig({ cwd: '/', env: {}, flags: { models: { main: model({ fallback: 'main' }) } } }),
      /must name another alias/,
    );
    const config = loadConfig({
      cwd: '/',
      env: {},
      flags: { models: { main: model({ fallback: 'spare' }), spare: model() } },
    });
    assert.equal(config.models['main']?.fallback, 'spare');
  });
});
