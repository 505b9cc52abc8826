import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createSilentLogger } from '../../shared/logger.js';
import { errorAnswer, HttpError } from './http-errors.js';

describe('HttpError', () => {
  it('is answered with its status and message, carries no stack frames, and leaves other errors their stacks', () => {
    const limit = Error.stackTraceLimit;
    const answer = new HttpError(404, 'target not found or has no linked channels');
    assert.deepEqual(errorAnswer(answer, createSilentLogger(), '/v1/api/notify'), {
      status: 404,
      body: { error: 'target not found or has no linked channels' },
    });
    assert.equal(answer.code, 'NOT_FOUND');
    assert.doesNotMatch(answer.stack ?? '', /\n\s+at /);
    assert.equal(Error.stackTraceLimit, limit, 'the stack trace limit is restored');
    assert.match(new Error('a fault').stack ?? '', /\n\s+at /, 'a real fault still has its stack');
  });
});
