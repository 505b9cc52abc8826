/** Contract suite for SlackInstallStore: installs by workspace, reinstall, removal with its keys, single-use states. */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { SlackInstallInput } from '../../src/storage/index.js';
import { useStores, type StoresFactory } from './stores-factory.js';

const install = (teamId: string, botToken = 'sealed-1'): SlackInstallInput => ({
  teamId,
  enterpriseId: null,
  teamName: `team ${teamId}`,
  appId: 'A1',
  botUserId: 'U0BOT',
  botId: 'B1',
  botToken,
  botScopes: ['chat:write', 'commands'],
  installerUserId: 'U0ADMIN',
});

export function slackInstallStoreContract(label: string, factory: StoresFactory): void {
  describe(`SlackInstallStore contract (${label})`, () => {
    const stores = useStores(factory);

    it('saves, replaces on reinstall (keeping the first install time), lists and removes installs with their keys', async () => {
      const store = stores().slackInstalls;
      await store.put(install('T2'));
      await store.put(install('T1'));
      const first = await store.get('T1');
      assert.deepEqual(first?.botScopes, ['chat:write', 'commands']);
      await store.put(install('T1', 'sealed-2'));
      const again = await store.get('T1');
      assert.equal(again?.botToken, 'sealed-2');
      assert.equal(again?.installedAt, first?.installedAt);
      assert.deepEqual(
        (await store.list()).map((row) => row.teamId),
        ['T1', 'T2'],
      );
      await store.remember('C1', 'T1');
      await store.remember('C1', 'T2');
      await store.remember('U1', 'T1');
      assert.equal(await store.teamOf('C1'), 'T2', 'the latest workspace of a key');
      assert.equal(await store.remove('T1'), true);
      assert.equal(await store.remove('T1'), false);
      assert.equal(await store.get('T1'), undefined);
      assert.equal(await store.teamOf('U1'), undefined, "a removed workspace's keys go with it");
      assert.equal(await store.teamOf('C1'), 'T2');
    });

    it('gives a state once, and never after it expired', async () => {
      const store = stores().slackInstalls;
      const now = new Date();
      await store.putState('h1', '{"scopes":[]}', new Date(now.getTime() + 60_000));
      await store.putState('h2', '{}', new Date(now.getTime() + 60_000));
      assert.equal(await store.takeState('h1', now), '{"scopes":[]}');
      assert.equal(await store.takeState('h1', now), undefined, 'used');
      assert.equal(await store.takeState('h2', new Date(now.getTime() + 120_000)), undefined, 'expired');
      assert.equal(await store.takeState('unknown', now), undefined);
    });
  });
}
