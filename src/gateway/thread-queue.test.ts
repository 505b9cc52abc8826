/** Tests for ThreadQueue: per-thread order, independence of threads, bounds and error isolation. */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ThreadQueue } from './thread-queue.js';

const unexpected = (error: unknown): void => assert.fail(String(error));
const tick = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

describe('ThreadQueue', () => {
  it('runs tasks of one thread in arrival order, never interleaved', async () => {
    const queue = new ThreadQueue();
    const log: string[] = [];
    const task = (name: string) => async () => {
      log.push(`${name}:start`);
      await tick();
      await tick();
      log.push(`${name}:end`);
    };
    await Promise.all([queue.run('t', task('a'), unexpected), queue.run('t', task('b'), unexpected), queue.run('t', task('c'), unexpected)]);
    assert.deepEqual(log, ['a:start', 'a:end', 'b:start', 'b:end', 'c:start', 'c:end']);
    assert.equal(queue.depth('t'), 0);
  });

  it('lets other threads proceed while one is busy', async () => {
    const queue = new ThreadQueue();
    let release: () => void = () => undefined;
    const blocked = queue.run('slow', () => new Promise<void>((resolve) => (release = resolve)), unexpected);
    let fastRan = false;
    await queue.run('fast', async () => {
      fastRan = true;
    }, unexpected);
    assert.equal(fastRan, true);
    release();
    assert.equal(await blocked, true);
  });

  it('refuses tasks beyond the bound and keeps running after a task throws', async () => {
    const queue = new ThreadQueue({ maxPending: 1 });
    const errors: unknown[] = [];
    const first = queue.run('t', async () => {
      await tick();
      throw new Error('boom');
    }, (error) => errors.push(error));
    const second = queue.run('t', async () => undefined, unexpected);
    const third = queue.run('t', async () => undefined, unexpected);
    assert.deepEqual(await Promise.all([first, second, third]), [true, true, false]);
    assert.equal(errors.length, 1);
  });

  it('drops work while busy with the drop strategy', async () => {
    const queue = new ThreadQueue({ strategy: 'drop' });
    const first = queue.run('t', tick, unexpected);
    const second = queue.run('t', tick, unexpected);
    assert.deepEqual(await Promise.all([first, second]), [true, false]);
  });
});
