import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { isAbortError } from '../../shared/abort.js';
import { abortErrorFor, httpProviderError, parseRetryAfterMs } from './provider-errors.js';

describe('parseRetryAfterMs', () => {
  it('prefers retry-after-ms, then seconds, then an HTTP date', () => {
    assert.equal(parseRetryAfterMs(new Headers({ 'retry-after-ms': '150', 'retry-after': '9' })), 150);
    assert.equal(parseRetryAfterMs(new Headers({ 'retry-after': '2.5' })), 2500);
    const now = Date.parse('2030-01-01T00:00:00Z');
    assert.equal(parseRetryAfterMs(new Headers({ 'retry-after': 'Tue, 01 Jan 2030 00:00:03 GMT' }), now), 3000);
    assert.equal(parseRetryAfterMs(new Headers({ 'retry-after': 'soon' })), undefined);
    assert.equal(parseRetryAfterMs(undefined), undefined);
  });
});

describe('httpProviderError', () => {
  it('classifies statuses and keeps only safe error types', () => {
    assert.equal(httpProviderError('openai', 429, undefined).code, 'RATE_LIMITED');
    assert.equal(httpProviderError('openai', 408, undefined).retryable, true);
    assert.equal(httpProviderError('openai', 404, undefined).retryable, false);
    const error = httpProviderError('anthropic', 400, undefined, 'invalid key sk-123 in body');
    assert.equal(error.message, 'anthropic: HTTP 400 bad request');
    assert.equal(httpProviderError('anthropic', undefined, undefined, 'overloaded_error').retryable, true);
  });
});

describe('abortErrorFor', () => {
  it('gives an abort error whatever the abort reason', () => {
    const controller = new AbortController();
    controller.abort('user pressed stop');
    assert.ok(isAbortError(abortErrorFor(controller.signal)));
    assert.ok(isAbortError(abortErrorFor(AbortSignal.abort())));
  });
});
