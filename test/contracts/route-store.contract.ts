/** Contract suite for RouteStore: first route wins, lookups by thread and by workstream. */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { useStores, type StoresFactory } from './stores-factory.js';

export function routeStoreContract(label: string, factory: StoresFactory): void {
  describe(`RouteStore contract (${label})`, () => {
    const stores = useStores(factory);

    it('stores a route and keeps the first one for a thread', async () => {
      assert.equal(await stores().routes.putRoute({ channelType: 'discord', channelId: 't1', wsId: 'ws-a' }), true);
      assert.equal(await stores().routes.putRoute({ channelType: 'discord', channelId: 't1', wsId: 'ws-b' }), false);
      const route = await stores().routes.getRoute('discord', 't1');
      assert.equal(route?.wsId, 'ws-a');
      assert.equal(route?.nodeId, '');
      assert.equal(await stores().routes.getRoute('slack', 't1'), undefined);
    });

    it('finds the home thread of a workstream and lists routes of a platform', async () => {
      await stores().routes.putRoute({ channelType: 'slack', channelId: 'C1:1700.1', wsId: 'ws-s', nodeId: 'node-1' });
      const home = await stores().routes.getRouteByWorkstream('ws-s');
      assert.equal(home?.channelId, 'C1:1700.1');
      assert.equal(home?.nodeId, 'node-1');
      await stores().routes.putRoute({ channelType: 'slack', channelId: 'C1:1700.2', wsId: 'ws-t' });
      const ids = (await stores().routes.listRoutes('slack')).map((route) => route.channelId).sort();
      assert.deepEqual(ids, ['C1:1700.1', 'C1:1700.2']);
      assert.equal(await stores().routes.getRouteByWorkstream('missing'), undefined);
    });

    it('deletes a route and says whether one existed', async () => {
      await stores().routes.putRoute({ channelType: 'discord', channelId: 'del', wsId: 'ws-d' });
      assert.equal(await stores().routes.deleteRoute('discord', 'del'), true);
      assert.equal(await stores().routes.deleteRoute('discord', 'del'), false);
      assert.equal(await stores().routes.getRoute('discord', 'del'), undefined);
      assert.equal(await stores().routes.putRoute({ channelType: 'discord', channelId: 'del', wsId: 'ws-e' }), true);
    });
  });
}
