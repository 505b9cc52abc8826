/** The write-behind of workstream rows: merged changes, one flush, nothing lost at shutdown, failures logged. */
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import { createTestStores, type TestStores } from '../../test/helpers/test-stores.js';
import { createLogger, createSilentLogger, type Logger } from '../shared/logger.js';
import { WorkstreamWrites } from './workstream-writes.js';

function capturingLogger(): { logger: Logger; lines: Array<Record<string, unknown>> } {
  const lines: Array<Record<string, unknown>> = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString('utf8').split('\n'))
        if (line.trim()) lines.push(JSON.parse(line) as Record<string, unknown>);
      done();
    },
  });
  return { logger: createLogger({ format: 'json', destination: sink }), lines };
}

describe('WorkstreamWrites', () => {
  let db: TestStores;
  before(async () => {
    db = await createTestStores();
  });
  after(async () => {
    await db.close();
  });

  it('merges state, usage and activity of many workstreams and writes them on flush', async () => {
    await db.stores.workstreams.create({ wsId: 'w1', userId: 'u', name: '', modelAlias: '' });
    await db.stores.workstreams.create({ wsId: 'w2', userId: 'u', name: '', modelAlias: '' });
    const writes = new WorkstreamWrites({
      store: db.stores.workstreams,
      logger: createSilentLogger(),
      now: () => Date.parse('2031-05-05T00:00:00Z'),
    });
    writes.setState('w1', 'thinking');
    writes.addUsage('w1', 100, 10);
    writes.addUsage('w1', 50, 5);
    writes.setState('w1', 'idle');
    writes.touch('w1');
    writes.setState('w2', 'error');
    assert.equal(writes.size, 2, 'one pending change per workstream');
    await writes.flush();
    assert.equal(writes.size, 0);
    const w1 = await db.stores.workstreams.get('w1');
    assert.deepEqual(
      [w1?.state, w1?.inputTokens, w1?.outputTokens, w1?.updated],
      ['idle', 150, 15, '2031-05-05T00:00:00.000Z'],
    );
    assert.equal((await db.stores.workstreams.get('w2'))?.state, 'error');
  });

  it('writes without an explicit flush once the event loop turns', async () => {
    await db.stores.workstreams.create({ wsId: 'w3', userId: 'u', name: '', modelAlias: '' });
    const writes = new WorkstreamWrites({ store: db.stores.workstreams, logger: createSilentLogger() });
    writes.setState('w3', 'running');
    for (let tries = 0; tries < 200 && (await db.stores.workstreams.get('w3'))?.state !== 'running'; tries++) {
      await new Promise((resolve) => setImmediate(resolve));
    }
    assert.equal((await db.stores.workstreams.get('w3'))?.state, 'running');
  });

  it('writes a change to a workstream whose row is still being inserted after that insert, so it is not lost', async () => {
    const writes = new WorkstreamWrites({ store: db.stores.workstreams, logger: createSilentLogger() });
    let insert!: () => void;
    const inserting = new Promise<void>((resolve) => (insert = resolve)).then(async () => {
      await db.stores.workstreams.create({ wsId: 'w4', userId: 'u', name: '', modelAlias: '' });
    });
    writes.afterCreation(inserting);
    writes.setState('w4', 'thinking');
    writes.addUsage('w4', 12, 3);
    const flushed = writes.flush();
    await new Promise((resolve) => setImmediate(resolve));
    insert();
    await flushed;
    const row = await db.stores.workstreams.get('w4');
    assert.deepEqual([row?.state, row?.inputTokens, row?.outputTokens], ['thinking', 12, 3]);
  });

  it('logs a failed write with what was lost, and flush still resolves', async () => {
    const broken = await createTestStores();
    await broken.close();
    const { logger, lines } = capturingLogger();
    const writes = new WorkstreamWrites({ store: broken.stores.workstreams, logger });
    writes.setState('gone', 'idle');
    writes.addUsage('gone', 7, 3);
    await writes.flush();
    const failure = lines.find((line) => line['msg'] === 'writing workstream state and usage failed');
    assert.ok(failure, 'the failure is logged');
    assert.deepEqual(failure['lost'], [{ wsId: 'gone', state: 'idle', inputTokens: 7, outputTokens: 3 }]);
  });
});
