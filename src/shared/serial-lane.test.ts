/** Tests for the serial lanes: arrival order, no interleaving, isolation of failures and of keys, memory follows work. */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { KeyedSerialLanes, SerialLane } from './serial-lane.js';

const tick = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

describe('SerialLane', () => {
  it('runs tasks in arrival order, never interleaved, and keeps going after a failure', async () => {
    const lane = new SerialLane();
    const log: string[] = [];
    const task =
      (name: string, fail = false) =>
      async () => {
        log.push(`${name}:start`);
        await tick();
        log.push(`${name}:end`);
        if (fail) throw new Error(name);
        return name;
      };
    const results = await Promise.allSettled([lane.run(task('a')), lane.run(task('b', true)), lane.run(task('c'))]);
    assert.deepEqual(log, ['a:start', 'a:end', 'b:start', 'b:end', 'c:start', 'c:end']);
    assert.deepEqual(
      results.map((r) => r.status),
      ['fulfilled', 'rejected', 'fulfilled'],
    );
    await lane.idle();
    assert.equal(lane.size, 0);
  });
});

describe('KeyedSerialLanes', () => {
  it('lets other keys proceed while one is busy and drops a lane once it drains', async () => {
    const lanes = new KeyedSerialLanes();
    let release: () => void = () => undefined;
    const blocked = lanes.run('slow', () => new Promise<void>((resolve) => (release = resolve)));
    assert.equal(await lanes.run('fast', async () => 'ran'), 'ran');
    assert.equal(lanes.size('slow'), 1);
    release();
    await blocked;
    await lanes.idle();
    assert.equal(lanes.keys, 0);
  });
});
