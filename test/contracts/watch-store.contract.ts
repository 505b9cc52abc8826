/** Contract suite for WatchStore: create, due listing by next_poll, progress updates, delete. */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { WatchRow } from '../../src/storage/index.js';
import { useStores, type StoresFactory } from './stores-factory.js';

type WatchInput = Pick<
  WatchRow,
  'watchId' | 'wsId' | 'name' | 'command' | 'intervalSecs' | 'stopOn' | 'maxPolls' | 'nextPoll'
>;

function watch(watchId: string, wsId: string, nextPoll: string | null): WatchInput {
  return {
    watchId,
    wsId,
    name: `w-${watchId}`,
    command: 'gh pr checks 12',
    intervalSecs: 30.5,
    stopOn: 'exit == 0',
    maxPolls: 10,
    nextPoll,
  };
}

export function watchStoreContract(label: string, factory: StoresFactory): void {
  describe(`WatchStore contract (${label})`, () => {
    const stores = useStores(factory);

    it('creates an active watch and reads it back', async () => {
      const row = await stores().watches.create({ ...watch('w1', 'ws-1', '2030-01-01T00:00:00'), createdBy: 'alice' });
      assert.equal(row.active, true);
      assert.equal(row.pollCount, 0);
      assert.equal(row.intervalSecs, 30.5);
      assert.equal(row.stopOn, 'exit == 0');
      assert.equal(row.createdBy, 'alice');
      assert.equal(row.lastExitCode, null);
      assert.deepEqual(await stores().watches.get('w1'), row);
    });

    it('lists due watches and the active watches of a workstream', async () => {
      await stores().watches.create(watch('due', 'ws-2', '2020-01-01T00:00:00'));
      await stores().watches.create(watch('later', 'ws-2', '2099-01-01T00:00:00'));
      await stores().watches.create(watch('never', 'ws-2', null));
      const due = (await stores().watches.listDue('2025-06-01T12:00:00')).map((row) => row.watchId);
      assert.deepEqual(due, ['due']);
      await stores().watches.update('later', { active: false });
      const active = (await stores().watches.listForWorkstream('ws-2')).map((row) => row.watchId).sort();
      assert.deepEqual(active, ['due', 'never']);
    });

    it('lets exactly one caller claim a due watch, and only while it is active and unchanged', async () => {
      await stores().watches.create(watch('claim', 'ws-4', '2020-01-01T00:00:00'));
      const claims = await Promise.all(
        [1, 2, 3].map(() => stores().watches.claim('claim', '2020-01-01T00:00:00', '2020-01-01T00:05:00')),
      );
      assert.deepEqual(claims.filter(Boolean).length, 1);
      assert.equal((await stores().watches.get('claim'))?.nextPoll, '2020-01-01T00:05:00');
      assert.equal(await stores().watches.claim('claim', '2020-01-01T00:00:00', '2020-01-01T00:09:00'), false);
      await stores().watches.update('claim', { active: false });
      assert.equal(await stores().watches.claim('claim', '2020-01-01T00:05:00', '2020-01-01T00:09:00'), false);
    });

    it('records poll progress', async () => {
      await stores().watches.create(watch('prog', 'ws-3', '2020-01-01T00:00:00'));
      const changed = await stores().watches.update('prog', {
        pollCount: 3,
        lastOutput: 'pending',
        lastExitCode: 1,
        lastPoll: '2025-01-01T00:00:00',
        nextPoll: '2025-01-01T00:00:30',
      });
      assert.equal(changed, true);
      const row = await stores().watches.get('prog');
      assert.deepEqual(
        [row?.pollCount, row?.lastOutput, row?.lastExitCode, row?.nextPoll],
        [3, 'pending', 1, '2025-01-01T00:00:30'],
      );
      assert.equal(await stores().watches.update('missing', { pollCount: 1 }), false);
      assert.equal(await stores().watches.delete('prog'), true);
      assert.equal(await stores().watches.get('prog'), undefined);
    });
  });
}
