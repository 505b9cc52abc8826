/** Contract suite for WorkstreamStore: create, patch, usage counters, listing, delete with history. */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { GatewayError } from '../../src/shared/errors.js';
import { useStores, type StoresFactory } from './stores-factory.js';

export function workstreamStoreContract(label: string, factory: StoresFactory): void {
  describe(`WorkstreamStore contract (${label})`, () => {
    const stores = useStores(factory);

    it('creates a workstream with defaults and reads it back', async () => {
      const row = await stores().workstreams.create({
        wsId: 'ws-1',
        userId: 'u-1',
        name: 'first',
        modelAlias: 'local',
      });
      assert.equal(row.state, 'idle');
      assert.deepEqual(row.autoApproveTools, []);
      assert.equal(row.inputTokens, 0);
      assert.equal(row.nodeId, '');
      assert.deepEqual(await stores().workstreams.get('ws-1'), row);
      assert.equal(await stores().workstreams.get('nope'), undefined);
    });

    it('rejects a duplicate id with CONFLICT', async () => {
      await stores().workstreams.create({ wsId: 'ws-dup', userId: 'u-1', name: '', modelAlias: '' });
      await assert.rejects(
        stores().workstreams.create({ wsId: 'ws-dup', userId: 'u-2', name: '', modelAlias: '' }),
        (error: unknown) => error instanceof GatewayError && error.code === 'CONFLICT',
      );
    });

    it('creates a workstream and its thread route together, or neither', async () => {
      const row = await stores().workstreams.create(
        { wsId: 'ws-r1', userId: 'u-r', name: 'routed', modelAlias: '' },
        { route: { channelType: 'discord', channelId: 't-1' } },
      );
      assert.deepEqual(await stores().workstreams.get('ws-r1'), row);
      const route = await stores().routes.getRoute('discord', 't-1');
      assert.equal(route?.wsId, 'ws-r1');
      assert.equal(route?.ownerUserId, 'u-r');
      // The second create fails (duplicate id): its route to thread t-2 is not left behind.
      await assert.rejects(
        stores().workstreams.create(
          { wsId: 'ws-r1', userId: 'u-r', name: '', modelAlias: '' },
          { route: { channelType: 'discord', channelId: 't-2' } },
        ),
      );
      assert.equal(await stores().routes.getRoute('discord', 't-2'), undefined);
    });

    it('applies a patch, including the always-approved labels', async () => {
      await stores().workstreams.create({ wsId: 'ws-2', userId: 'u-1', name: 'n', modelAlias: 'a' });
      const changed = await stores().workstreams.update('ws-2', {
        title: 'Fix the build',
        state: 'attention',
        autoApproveTools: ['bash', 'mcp__github__*'],
        nodeId: 'node-7',
        modelAlias: 'big',
      });
      assert.equal(changed, true);
      const row = await stores().workstreams.get('ws-2');
      assert.equal(row?.title, 'Fix the build');
      assert.equal(row?.state, 'attention');
      assert.deepEqual(row?.autoApproveTools, ['bash', 'mcp__github__*']);
      assert.equal(row?.nodeId, 'node-7');
      assert.equal(row?.modelAlias, 'big');
      assert.equal(row?.name, 'n');
      assert.equal(await stores().workstreams.update('missing', { title: 'x' }), false);
    });

    it('adds usage atomically under concurrent calls', async () => {
      await stores().workstreams.create({ wsId: 'ws-3', userId: 'u-1', name: '', modelAlias: '' });
      await Promise.all(Array.from({ length: 10 }, () => stores().workstreams.addUsage('ws-3', 100, 7)));
      const row = await stores().workstreams.get('ws-3');
      assert.equal(row?.inputTokens, 1000);
      assert.equal(row?.outputTokens, 70);
    });

    it('applies a batch of changes in one call: state, token deltas, activity time; a missing row is skipped', async () => {
      await stores().workstreams.create({ wsId: 'ws-b1', userId: 'u-1', name: '', modelAlias: '' });
      await stores().workstreams.create({ wsId: 'ws-b2', userId: 'u-1', name: '', modelAlias: '' });
      await stores().workstreams.addUsage('ws-b1', 5, 1);
      await stores().workstreams.applyChanges([
        { wsId: 'ws-b1', state: 'thinking', inputTokens: 10, outputTokens: 3, touched: '2030-01-01T00:00:00.000Z' },
        { wsId: 'ws-gone', state: 'idle', inputTokens: 1 },
        { wsId: 'ws-b2', state: 'error' },
      ]);
      const first = await stores().workstreams.get('ws-b1');
      assert.deepEqual(
        [first?.state, first?.inputTokens, first?.outputTokens, first?.updated],
        ['thinking', 15, 4, '2030-01-01T00:00:00.000Z'],
      );
      assert.equal((await stores().workstreams.get('ws-b2'))?.state, 'error');
      assert.equal(await stores().workstreams.get('ws-gone'), undefined);
      assert.equal(
        (await stores().workstreams.list({ userId: 'u-1' }))[0]?.wsId,
        'ws-b1',
        'the touched row lists first',
      );
    });

    it('lists by user and state', async () => {
      await stores().workstreams.create({ wsId: 'ws-l1', userId: 'lister', name: '', modelAlias: '' });
      await stores().workstreams.create({ wsId: 'ws-l2', userId: 'lister', name: '', modelAlias: '' });
      await stores().workstreams.update('ws-l2', { state: 'closed' });
      const all = await stores().workstreams.list({ userId: 'lister' });
      assert.deepEqual(all.map((row) => row.wsId).sort(), ['ws-l1', 'ws-l2']);
      const closed = await stores().workstreams.list({ userId: 'lister', state: 'closed' });
      assert.deepEqual(
        closed.map((row) => row.wsId),
        ['ws-l2'],
      );
      assert.ok((await stores().workstreams.list()).length >= 2);
    });

    it('deletes a workstream together with its conversation', async () => {
      await stores().workstreams.create({ wsId: 'ws-del', userId: 'u', name: '', modelAlias: '' });
      await stores().conversations.append('ws-del', { role: 'user', content: 'hello' });
      assert.equal(await stores().workstreams.delete('ws-del'), true);
      assert.equal(await stores().workstreams.get('ws-del'), undefined);
      assert.equal(await stores().conversations.count('ws-del'), 0);
      assert.equal(await stores().workstreams.delete('ws-del'), false);
    });
  });
}
