/** Contract suite for ServiceStore: register/upsert, heartbeat, deregister, healthy listing. */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { useStores, type StoresFactory } from './stores-factory.js';

export function serviceStoreContract(label: string, factory: StoresFactory): void {
  describe(`ServiceStore contract (${label})`, () => {
    const stores = useStores(factory);

    it('registers a service and lists it as healthy with its metadata', async () => {
      await stores().services.register({
        serviceType: 'channel',
        serviceId: 'gw-1',
        url: 'http://127.0.0.1:1',
        metadata: { adapters: ['discord'] },
      });
      const healthy = await stores().services.listHealthy('channel', 120);
      assert.equal(healthy.length, 1);
      assert.equal(healthy[0]?.url, 'http://127.0.0.1:1');
      assert.deepEqual(healthy[0]?.metadata, { adapters: ['discord'] });
      assert.deepEqual(await stores().services.listHealthy('server', 120), []);
    });

    it('re-registering updates url and metadata and keeps created', async () => {
      await stores().services.register({ serviceType: 'channel', serviceId: 'gw-2', url: 'http://old' });
      const before = (await stores().services.listHealthy('channel', 120)).find((row) => row.serviceId === 'gw-2');
      await stores().services.register({
        serviceType: 'channel',
        serviceId: 'gw-2',
        url: 'http://new',
        metadata: { v: 2 },
      });
      const after = (await stores().services.listHealthy('channel', 120)).find((row) => row.serviceId === 'gw-2');
      assert.equal(after?.url, 'http://new');
      assert.deepEqual(after?.metadata, { v: 2 });
      assert.equal(after?.created, before?.created);
    });

    it('heartbeats only existing rows and deregisters', async () => {
      await stores().services.register({ serviceType: 'console', serviceId: 'c-1', url: 'http://c' });
      assert.equal(await stores().services.heartbeat('console', 'c-1'), true);
      assert.equal(await stores().services.deregister('console', 'c-1'), true);
      assert.equal(await stores().services.heartbeat('console', 'c-1'), false);
      assert.equal(await stores().services.deregister('console', 'c-1'), false);
      assert.deepEqual(await stores().services.listHealthy('console', 120), []);
    });
  });
}
