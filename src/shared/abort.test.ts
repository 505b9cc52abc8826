/** Tests for untilAborted: settles like the promise, or rejects on abort with the reason or a caller's error. */
import { getEventListeners } from 'node:events';
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { untilAborted } from './abort.js';

describe('untilAborted', () => {
  it('resolves and rejects like the promise when the signal stays quiet, and removes its listener', async () => {
    const controller = new AbortController();
    assert.equal(await untilAborted(Promise.resolve(7), controller.signal), 7);
    await assert.rejects(untilAborted(Promise.reject(new Error('boom')), controller.signal), /boom/);
    assert.equal(getEventListeners(controller.signal, 'abort').length, 0);
  });

  it('rejects with the signal reason as soon as it aborts, even though the promise never settles', async () => {
    const controller = new AbortController();
    const waiting = untilAborted(new Promise<never>(() => undefined), controller.signal);
    controller.abort(new Error('stopped'));
    await assert.rejects(waiting, /stopped/);
  });

  it('rejects at once with the caller’s error when already aborted, and a later rejection stays handled', async () => {
    const controller = new AbortController();
    controller.abort();
    let fail: (error: Error) => void = () => undefined;
    const pending = new Promise<never>((_resolve, reject) => (fail = reject));
    await assert.rejects(untilAborted(pending, controller.signal, () => new Error('cancelled')), /cancelled/);
    fail(new Error('late failure')); // no unhandled rejection: untilAborted still listens to the promise
    assert.equal(getEventListeners(controller.signal, 'abort').length, 0);
  });
});
