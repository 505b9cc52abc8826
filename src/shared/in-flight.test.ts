import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { InFlight } from './in-flight.js';

function deferred(): { promise: Promise<void>; resolve: () => void; reject: (error: Error) => void } {
  let resolve!: () => void;
  let reject!: (error: Error) => void;
  const promise = new Promise<void>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

describe('InFlight', () => {
  it('settle waits for the work running when it was called, failed work included', async () => {
    const work = new InFlight();
    const [a, b] = [deferred(), deferred()];
    void work.track(a.promise);
    work.track(b.promise).catch(() => undefined);
    assert.equal(work.size, 2);
    const settled = work.settle(10_000);
    a.resolve();
    b.reject(new Error('failed'));
    assert.equal(await settled, 0);
    assert.equal(work.size, 0);
  });

  it('settle gives up after the grace and says how many were still running', async () => {
    const work = new InFlight();
    const [stuck, quick] = [deferred(), deferred()];
    void work.track(stuck.promise);
    void work.track(quick.promise);
    quick.resolve();
    assert.equal(await work.settle(20), 1);
    stuck.resolve();
  });

  it('snapshot holds only what runs now; settle with nothing running returns at once', async () => {
    const work = new InFlight();
    assert.equal(await work.settle(10_000), 0);
    const first = deferred();
    void work.track(first.promise);
    const snapshot = work.snapshot();
    void work.track(Promise.resolve());
    assert.deepEqual(snapshot, [first.promise]);
    first.resolve();
  });
});
