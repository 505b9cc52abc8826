/** Contract suite for ApprovalStore: durable rows, idempotent resolve, execution claimed exactly once. */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { ApprovalRow } from '../../src/storage/index.js';
import { useStores, type StoresFactory } from './stores-factory.js';

const ITEMS = [{ callId: 'call_1', name: 'bash', header: 'Execute: ls', raw: { arguments: '{"command":"ls"}' } }];

function newRow(
  approvalId: string,
  wsId = 'ws-a',
): Pick<ApprovalRow, 'approvalId' | 'wsId' | 'turnId' | 'kind' | 'ownerUserId' | 'items'> {
  return { approvalId, wsId, turnId: 'turn-1', kind: 'tools', ownerUserId: 'owner-1', items: ITEMS };
}

export function approvalStoreContract(label: string, factory: StoresFactory): void {
  describe(`ApprovalStore contract (${label})`, () => {
    const stores = useStores(factory);

    it('creates a pending row with its items and reads it back', async () => {
      const row = await stores().approvals.create(newRow('ap-1'));
      assert.equal(row.state, 'pending');
      assert.deepEqual(row.items, ITEMS);
      assert.equal(row.decided, null);
      assert.deepEqual(await stores().approvals.get('ap-1'), row);
      assert.equal(await stores().approvals.get('missing'), undefined);
    });

    it('resolves once; a second click is a no-op that returns the decided row', async () => {
      await stores().approvals.create(newRow('ap-2'));
      const first = await stores().approvals.resolve('ap-2', {
        approved: true,
        always: true,
        feedback: null,
        decidedBy: 'owner-1',
      });
      assert.equal(first?.changed, true);
      assert.equal(first?.row.state, 'approved');
      assert.equal(first?.row.always, true);
      assert.equal(first?.row.decidedBy, 'owner-1');
      assert.ok(first?.row.decided);
      const second = await stores().approvals.resolve('ap-2', {
        approved: false,
        always: false,
        feedback: 'no',
        decidedBy: 'admin',
      });
      assert.equal(second?.changed, false);
      assert.equal(second?.row.state, 'approved');
      assert.equal(second?.row.decidedBy, 'owner-1');
      assert.equal(
        await stores().approvals.resolve('missing', { approved: true, always: false, feedback: null, decidedBy: 'x' }),
        undefined,
      );
    });

    it('lets exactly one of many concurrent clicks win', async () => {
      await stores().approvals.create(newRow('ap-race'));
      const results = await Promise.all(
        Array.from({ length: 8 }, (_, index) =>
          stores().approvals.resolve('ap-race', {
            approved: index % 2 === 0,
            always: false,
            feedback: `f${index}`,
            decidedBy: `u${index}`,
          }),
        ),
      );
      assert.equal(results.filter((result) => result?.changed).length, 1);
    });

    it('records a denial with feedback', async () => {
      await stores().approvals.create(newRow('ap-deny'));
      const result = await stores().approvals.resolve('ap-deny', {
        approved: false,
        always: false,
        feedback: 'use ls -la',
        decidedBy: 'owner-1',
      });
      assert.equal(result?.row.state, 'denied');
      assert.equal(result?.row.feedback, 'use ls -la');
    });

    it('claims execution exactly once, and only after a decision', async () => {
      await stores().approvals.create(newRow('ap-exec'));
      assert.equal(await stores().approvals.claimExecution('ap-exec'), false);
      await stores().approvals.resolve('ap-exec', {
        approved: true,
        always: false,
        feedback: null,
        decidedBy: 'owner-1',
      });
      const claims = await Promise.all(Array.from({ length: 6 }, () => stores().approvals.claimExecution('ap-exec')));
      assert.equal(claims.filter(Boolean).length, 1);
      assert.equal((await stores().approvals.get('ap-exec'))?.state, 'executed');
      assert.equal(await stores().approvals.claimExecution('missing'), false);
    });

    it('records where the card was posted', async () => {
      await stores().approvals.create(newRow('ap-card'));
      await stores().approvals.setCard('ap-card', { channelType: 'discord', channelId: 'th-1', messageId: 'm-1' });
      const row = await stores().approvals.get('ap-card');
      assert.deepEqual([row?.channelType, row?.channelId, row?.messageId], ['discord', 'th-1', 'm-1']);
    });

    it("lists pending rows oldest first and cancels a workstream's pending rows", async () => {
      await stores().approvals.create(newRow('p-1', 'ws-p'));
      await stores().approvals.create(newRow('p-2', 'ws-p'));
      await stores().approvals.create(newRow('p-3', 'ws-q'));
      await stores().approvals.resolve('p-2', { approved: true, always: false, feedback: null, decidedBy: 'o' });
      await stores().approvals.create(newRow('p-4', 'ws-p'));
      assert.deepEqual(
        (await stores().approvals.listPending('ws-p')).map((row) => row.approvalId),
        ['p-1', 'p-4'],
      );
      assert.ok((await stores().approvals.listPending()).some((row) => row.approvalId === 'p-3'));
      assert.equal(await stores().approvals.cancelPending('ws-p'), 2);
      assert.deepEqual(await stores().approvals.listPending('ws-p'), []);
      assert.equal((await stores().approvals.get('p-1'))?.state, 'cancelled');
      assert.equal((await stores().approvals.get('p-2'))?.state, 'approved');
      const late = await stores().approvals.resolve('p-1', {
        approved: true,
        always: false,
        feedback: null,
        decidedBy: 'o',
      });
      assert.equal(late?.changed, false);
    });
  });
}
