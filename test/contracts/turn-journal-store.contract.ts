/** Contract suite for TurnJournalStore (ADR 0013) and the crash-recovery reads of routes and approvals. */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { isClaimLost } from '../../src/shared/errors.js';
import { useStores, type StoresFactory } from './stores-factory.js';

export function turnJournalStoreContract(label: string, factory: StoresFactory): void {
  describe(`TurnJournalStore contract (${label})`, () => {
    const stores = useStores(factory);

    it("applies begin, partial and end in order; a begin replaces the workstream's other rows", async () => {
      const journal = stores().turnJournal;
      await journal.apply([
        { kind: 'begin', turnId: 't1', wsId: 'ws-j', resumed: false },
        { kind: 'partial', turnId: 't1', wsId: 'ws-j', partialText: 'half of it' },
      ]);
      const row = await journal.forWorkstream('ws-j');
      assert.ok((await journal.turningWorkstreams()).includes('ws-j'), 'a turn in flight is listed');
      assert.deepEqual([row?.turnId, row?.partialText, row?.resumed, row?.settled], ['t1', 'half of it', false, false]);
      await journal.apply([
        { kind: 'begin', turnId: 't2', wsId: 'ws-j', resumed: true },
        { kind: 'partial', turnId: 'gone', wsId: 'ws-j', partialText: 'x' },
      ]);
      assert.deepEqual(
        (await journal.list()).filter((entry) => entry.wsId === 'ws-j').map((entry) => [entry.turnId, entry.resumed]),
        [['t2', true]],
      );
      await journal.markSettled('t2');
      assert.equal((await journal.forWorkstream('ws-j'))?.settled, true);
      await journal.apply([{ kind: 'end', turnId: 't2', wsId: 'ws-j' }]);
      assert.equal(await journal.forWorkstream('ws-j'), undefined);
      assert.equal((await journal.turningWorkstreams()).includes('ws-j'), false, 'an ended turn is not');
      await journal.apply([{ kind: 'begin', turnId: 't3', wsId: 'ws-j', resumed: false }]);
      await journal.remove('t3');
      assert.equal(await journal.forWorkstream('ws-j'), undefined);
    });

    it("stores a message only while its claim is this instance's: a claim taken over meanwhile refuses the write whole", async () => {
      const { turnJournal: journal, inboundEvents, conversations } = stores();
      const claim = (messageId: string, claimedBy: string) => ({
        platform: 'discord',
        eventKey: `msg:fence:${messageId}`,
        channelId: 'fence',
        messageId,
        receivedAt: 1,
        claimedBy,
      });
      const message = { role: 'user' as const, content: 'hello' };
      assert.equal(await inboundEvents.claim(claim('1', 'a')), true);
      assert.equal(await inboundEvents.reclaim(claim('1', 'b'), {}), true, 'b takes the claim of a');
      await assert.rejects(
        journal.apply([
          { kind: 'begin', turnId: 'fa', wsId: 'ws-fa', resumed: false, receipt: claim('1', 'a'), message },
        ]),
        (error: unknown) => isClaimLost(error),
      );
      assert.equal(await journal.forWorkstream('ws-fa'), undefined, 'no turn row');
      assert.deepEqual(await conversations.load('ws-fa'), [], 'no message');
      await journal.apply([
        { kind: 'begin', turnId: 'fb', wsId: 'ws-fb', resumed: false, receipt: claim('1', 'b'), message },
      ]);
      assert.equal((await journal.forWorkstream('ws-fb'))?.turnId, 'fb', "the new claimer's write is stored");
      assert.equal(await inboundEvents.reclaim(claim('1', 'a'), {}), false, 'settled: never taken back');
      // A waiting message's row settles the claim; its accepted write later carries the same receipt.
      assert.equal(await inboundEvents.claim(claim('2', 'a')), true);
      const seq = Date.now() * 1000;
      await journal.apply([
        {
          kind: 'queue',
          turnId: 'fq',
          wsId: 'ws-fq',
          content: '"wait"',
          origin: 'user',
          seq,
          receipt: claim('2', 'a'),
        },
      ]);
      await journal.apply([
        { kind: 'begin', turnId: 'fq', wsId: 'ws-fq', resumed: false, waited: true, receipt: claim('2', 'a') },
      ]);
      assert.equal((await journal.forWorkstream('ws-fq'))?.turnId, 'fq');
      // A waiting message whose claim was taken over is not stored either.
      assert.equal(await inboundEvents.claim(claim('3', 'a')), true);
      assert.equal(await inboundEvents.reclaim(claim('3', 'b'), {}), true);
      const waiting = { kind: 'queue', turnId: 'fw', wsId: 'ws-fw', content: '"w"', origin: 'user', seq } as const;
      await assert.rejects(journal.apply([{ ...waiting, receipt: claim('3', 'a') }]), (error: unknown) =>
        isClaimLost(error),
      );
      assert.deepEqual(await journal.queued('ws-fw'), [], 'no waiting row');
      await journal.apply([{ ...waiting, receipt: claim('3', 'b') }]);
      assert.deepEqual(
        (await journal.queued('ws-fw')).map((row) => row.turnId),
        ['fw'],
        "the new claimer's waiting row is stored",
      );
      await journal.apply([{ kind: 'drop', wsId: 'ws-fw' }]);
    });

    it('joins a steer to the running turn: its message in the history, its waiting row gone, the turn row kept', async () => {
      const { turnJournal: journal, conversations } = stores();
      const seq = Date.now() * 1000;
      await journal.apply([{ kind: 'begin', turnId: 'running', wsId: 'ws-s', resumed: false }]);
      await journal.apply([
        { kind: 'queue', turnId: 'steer-1', wsId: 'ws-s', content: '"also this"', origin: 'user', seq },
      ]);
      await journal.apply([
        { kind: 'steer', turnId: 'steer-1', wsId: 'ws-s', message: { role: 'user', content: 'also this' } },
      ]);
      assert.deepEqual(await journal.queued('ws-s'), []);
      assert.deepEqual(
        (await conversations.load('ws-s')).map((message) => [message.role, message.content]),
        [['user', 'also this']],
      );
      assert.equal((await journal.forWorkstream('ws-s'))?.turnId, 'running', 'the running turn keeps its row');
      await journal.apply([{ kind: 'end', turnId: 'running', wsId: 'ws-s' }]);
    });

    it("writes several turns' streamed texts at once, the latest of each; a turn that is gone changes nothing", async () => {
      const journal = stores().turnJournal;
      await journal.apply([{ kind: 'begin', turnId: 'p1', wsId: 'ws-p1', resumed: false }]);
      await journal.apply([{ kind: 'begin', turnId: 'p2', wsId: 'ws-p2', resumed: false }]);
      await journal.apply([
        { kind: 'partial', turnId: 'p1', wsId: 'ws-p1', partialText: 'first' },
        { kind: 'partial', turnId: 'p2', wsId: 'ws-p2', partialText: 'other' },
        { kind: 'partial', turnId: 'p-gone', wsId: 'ws-p3', partialText: 'lost' },
        { kind: 'partial', turnId: 'p1', wsId: 'ws-p1', partialText: 'first and more' },
      ]);
      assert.equal((await journal.forWorkstream('ws-p1'))?.partialText, 'first and more');
      assert.equal((await journal.forWorkstream('ws-p2'))?.partialText, 'other');
      assert.equal(await journal.forWorkstream('ws-p3'), undefined);
    });

    it('keeps waiting messages in acceptance order until their turn begins or the workstream drops them', async () => {
      const journal = stores().turnJournal;
      const seq = Date.now() * 1000;
      await journal.apply([
        { kind: 'queue', turnId: 'q2', wsId: 'ws-q', content: '"second"', origin: 'watch', seq: seq + 1 },
        { kind: 'queue', turnId: 'q1', wsId: 'ws-q', content: '"first"', origin: 'user', seq },
        { kind: 'queue', turnId: 'q9', wsId: 'ws-other', content: '"elsewhere"', origin: 'user', seq: seq + 2 },
      ]);
      assert.deepEqual(
        (await journal.queued('ws-q')).map((row) => [row.turnId, row.content, row.origin, row.seq]),
        [
          ['q1', '"first"', 'user', seq],
          ['q2', '"second"', 'watch', seq + 1],
        ],
      );
      assert.deepEqual(await journal.queuedWorkstreams(), ['ws-other', 'ws-q']);
      await journal.apply([{ kind: 'begin', turnId: 'q1', wsId: 'ws-q', resumed: false, waited: true }]);
      assert.deepEqual(
        (await journal.queued('ws-q')).map((row) => row.turnId),
        ['q2'],
      );
      await journal.apply([
        { kind: 'drop', wsId: 'ws-q' },
        { kind: 'drop', wsId: 'ws-other' },
        { kind: 'end', turnId: 'q1', wsId: 'ws-q' },
      ]);
      assert.deepEqual(await journal.queuedWorkstreams(), []);
    });

    it('records and clears the live state of a thread, and only of that thread', async () => {
      await stores().routes.putRoute({ channelType: 'discord', channelId: 'live-1', wsId: 'ws-live' });
      await stores().routes.putRoute({ channelType: 'discord', channelId: 'live-2', wsId: 'ws-quiet' });
      await stores().routes.setLiveState('discord', 'live-1', '{"v":1}');
      assert.equal((await stores().routes.getRoute('discord', 'live-1'))?.liveState, '{"v":1}');
      assert.equal((await stores().routes.getRoute('discord', 'live-2'))?.liveState, null);
      await stores().routes.setLiveState('discord', 'live-1', null);
      assert.equal((await stores().routes.getRoute('discord', 'live-1'))?.liveState, null);
    });

    it('lists the approvals of one turn, oldest first', async () => {
      const base = { wsId: 'ws-ap', kind: 'tools' as const, ownerUserId: 'u', items: { version: 1 } };
      await stores().approvals.create({ ...base, approvalId: 'ap-1', turnId: 'turn-x' });
      await stores().approvals.create({ ...base, approvalId: 'ap-2', turnId: 'turn-y' });
      await stores().approvals.create({ ...base, approvalId: 'ap-3', turnId: 'turn-x' });
      assert.deepEqual(
        (await stores().approvals.listForTurn('turn-x')).map((row) => row.approvalId),
        ['ap-1', 'ap-3'],
      );
      assert.deepEqual(await stores().approvals.listForTurn('none'), []);
    });
  });
}
