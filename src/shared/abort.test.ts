/** Tests for untilAborted: settles like the promise, or rejects on abort with the reason or a caller's error. */
import { getEventListeners } from 'node:events';
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { linkedSignal, scopedSignal, untilAborted, withLinkedSignal } from './abort.js';

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
    await assert.rejects(
      untilAborted(pending, controller.signal, () => new Error('cancelled')),
      /cancelled/,
    );
    fail(new Error('late failure')); // no unhandled rejection: untilAborted still listens to the promise
    assert.equal(getEventListeners(controller.signal, 'abort').length, 0);
  });
});

describe('linkedSignal', () => {
  it('follows the parent with its reason, times out with the given reason, and leaves nothing attached after release', async () => {
    const parent = new AbortController();
    const linked = linkedSignal(parent.signal);
    assert.equal(getEventListeners(parent.signal, 'abort').length, 1);
    parent.abort(new Error('stop'));
    assert.equal((linked.signal.reason as Error).message, 'stop');
    linked.release();
    assert.equal(getEventListeners(parent.signal, 'abort').length, 0);

    const timed = linkedSignal(undefined, { timeoutMs: 1, timeoutReason: () => new Error('too slow') });
    // The signal's timer is unref'd (it never keeps a process alive): the test holds the loop open while it waits.
    const hold = setInterval(() => undefined, 1000);
    await new Promise((resolve) => timed.signal.addEventListener('abort', resolve, { once: true }));
    clearInterval(hold);
    assert.equal((timed.signal.reason as Error).message, 'too slow');

    const longLived = new AbortController();
    assert.equal(
      await withLinkedSignal(longLived.signal, async (own) => (own === longLived.signal ? 'same' : 'own')),
      'own',
    );
    assert.equal(getEventListeners(longLived.signal, 'abort').length, 0);
  });
});

describe('scopedSignal', () => {
  it('is handed to each call as it is, follows its parent until released, and still gets its own signal when a timeout is added', async () => {
    const renderer = new AbortController();
    const scope = scopedSignal(renderer.signal);
    const seen: AbortSignal[] = [];
    for (let call = 0; call < 3; call++) await withLinkedSignal(scope.signal, async (own) => void seen.push(own));
    assert.deepEqual(seen, [scope.signal, scope.signal, scope.signal], 'no signal is linked per call');
    assert.equal(getEventListeners(renderer.signal, 'abort').length, 1);
    assert.notEqual(await withLinkedSignal(scope.signal, async (own) => own, { timeoutMs: 60_000 }), scope.signal);
    renderer.abort(new Error('disposed'));
    assert.equal((scope.signal.reason as Error).message, 'disposed');

    const next = new AbortController();
    const released = scopedSignal(next.signal);
    released.release();
    assert.equal(getEventListeners(next.signal, 'abort').length, 0, 'nothing stays on the parent once the scope ends');
  });

  it('takes the listeners of a long answer’s many edits without a "possible memory leak" warning on stderr', async () => {
    const warnings: Error[] = [];
    const onWarning = (warning: Error): void => void warnings.push(warning);
    process.on('warning', onWarning);
    try {
      const scope = scopedSignal(new AbortController().signal);
      // What discord.js does on each request it is given this signal for: one listener, never removed.
      for (let edit = 0; edit < 40; edit++) scope.signal.addEventListener('abort', () => undefined);
      // Node emits 'warning' from a process.nextTick queued as the eleventh listener was added; the queue runs in
      // order, so by this tick's turn the warning, if any, has been emitted.
      await new Promise((resolve) => process.nextTick(resolve));
      assert.deepEqual(
        warnings.filter((warning) => warning.name === 'MaxListenersExceededWarning').map((warning) => warning.message),
        [],
      );
    } finally {
      process.off('warning', onWarning);
    }
  });
});
