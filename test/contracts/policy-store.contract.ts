/** Contract suite for PolicyStore: priority order with insertion-order ties, org filter, update, delete. */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { useStores, type StoresFactory } from './stores-factory.js';

export function policyStoreContract(label: string, factory: StoresFactory): void {
  describe(`PolicyStore contract (${label})`, () => {
    const stores = useStores(factory);

    it('lists policies by priority, ties in insertion order', async () => {
      await stores().policies.create({ name: 'low', toolPattern: '*', action: 'ask' });
      await stores().policies.create({ name: 'high-a', toolPattern: 'bash*', action: 'deny', priority: 10 });
      await stores().policies.create({ name: 'high-b', toolPattern: 'bash', action: 'allow', priority: 10 });
      await stores().policies.create({
        name: 'mid',
        toolPattern: 'mcp__*',
        action: 'allow',
        priority: 5,
        enabled: false,
      });
      const names = (await stores().policies.list()).map((policy) => policy.name);
      assert.deepEqual(names, ['high-a', 'high-b', 'mid', 'low']);
      const mid = (await stores().policies.list()).find((policy) => policy.name === 'mid');
      assert.equal(mid?.enabled, false);
      assert.equal(mid?.toolPattern, 'mcp__*');
    });

    it('filters by organisation when one is given', async () => {
      await stores().policies.create({
        name: 'org-only',
        toolPattern: 'x',
        action: 'deny',
        orgId: 'org-1',
        createdBy: 'admin',
      });
      const scoped = await stores().policies.list('org-1');
      assert.deepEqual(
        scoped.map((policy) => policy.name),
        ['org-only'],
      );
      assert.equal(scoped[0]?.createdBy, 'admin');
    });

    it('updates and deletes a policy', async () => {
      const policy = await stores().policies.create({ name: 'edit-me', toolPattern: 'write_file', action: 'ask' });
      assert.equal(
        await stores().policies.update(policy.policyId, { action: 'deny', priority: 99, enabled: false }),
        true,
      );
      const updated = (await stores().policies.list()).find((row) => row.policyId === policy.policyId);
      assert.equal(updated?.action, 'deny');
      assert.equal(updated?.priority, 99);
      assert.equal(updated?.enabled, false);
      assert.equal(await stores().policies.delete(policy.policyId), true);
      assert.equal(await stores().policies.delete(policy.policyId), false);
      assert.equal(await stores().policies.update(policy.policyId, { action: 'allow' }), false);
    });
  });
}
