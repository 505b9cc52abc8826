/** Contract suite for TurnJournalStore (ADR 0013) and the crash-recovery reads of routes and approvals. */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { useStores, type StoresFactory } from './stores-factory.js';

export function turnJournalStoreContract(label: string, factory: StoresFactory): void {
  describe(`TurnJournalStore contract (${label})`, () => {
    const stores = useStores(factory);

    it('applies begin, partial and end in order; a begin replaces the workstream\'s other rows', async () => {
      const journal = stores().turnJournal;
      await journal.apply([
        { kind: 'begin', turnId: 't1', wsId: 'ws-j', resumed: false },
        { kind: 'partial', turnId: 't1', partialText: 'half of it' },
      ]);
      const row = await journal.forWorkstream('ws-j');
      assert.deepEqual([row?.turnId, row?.partialText, row?.resumed, row?.settled], ['t1', 'half of it', false, false]);
      await journal.apply([{ kind: 'begin', turnId: 't2', wsId: 'ws-j', resumed: true }, { kind: 'partial', turnId: 'gone', partialText: 'x' }]);
      assert.deepEqual((await journal.list()).filter((entry) => entry.wsId === 'ws-j').map((entry) => [entry.turnId, entry.resumed]), [['t2', true]]);
      await journal.markSettled('t2');
      assert.equal((await journal.forWorkstream('ws-j'))?.settled, true);
      await journal.apply([{ kind: 'end', turnId: 't2' }]);
      assert.equal(await journal.forWorkstream('ws-j'), undefined);
      await journal.apply([{ kind: 'begin', turnId: 't3', wsId: 'ws-j', resumed: false }]);
      await journal.remove('t3');
      assert.equal(await journal.forWorkstream('ws-j'), undefined);
    });

    it('records and clears the live state of a thread, and lists the threads that have one', async () => {
      await stores().routes.putRoute({ channelType: 'discord', channelId: 'live-1', wsId: 'ws-live' });
      await stores().routes.putRoute({ channelType: 'discord', channelId: 'live-2', wsId: 'ws-quiet' });
      await stores().routes.setLiveState('discord', 'live-1', '{"v":1}');
      assert.equal((await stores().routes.getRoute('discord', 'live-1'))?.liveState, '{"v":1}');
      assert.deepEqual((await stores().routes.listLive()).map((route) => route.channelId), ['live-1']);
      await stores().routes.setLiveState('discord', 'live-1', null);
      assert.deepEqual(await stores().routes.listLive(), []);
    });

    it('lists the approvals of one turn, oldest first', async () => {
      const base = { wsId: 'ws-ap', kind: 'tools' as const, ownerUserId: 'u', items: { version: 1 } };
      await stores().approvals.create({ ...base, approvalId: 'ap-1', turnId: 'turn-x' });
      await stores().approvals.create({ ...base, approvalId: 'ap-2', turnId: 'turn-y' });
      await stores().approvals.create({ ...base, approvalId: 'ap-3', turnId: 'turn-x' });
      assert.deepEqual((await stores().approvals.listForTurn('turn-x')).map((row) => row.approvalId), ['ap-1', 'ap-3']);
      assert.deepEqual(await stores().approvals.listForTurn('none'), []);
    });
  });
}
