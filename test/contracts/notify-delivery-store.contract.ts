/** Contract suite for NotifyDeliveryStore: replies find the workstream by message or latest in channel. */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { useStores, type StoresFactory } from './stores-factory.js';

export function notifyDeliveryStoreContract(label: string, factory: StoresFactory): void {
  describe(`NotifyDeliveryStore contract (${label})`, () => {
    const stores = useStores(factory);

    it('finds a delivery by the posted message id', async () => {
      const delivery = await stores().notifyDeliveries.record({
        wsId: 'ws-n',
        channelType: 'discord',
        channelId: 'dm-1',
        messageId: 'msg-1',
        recipient: 'user-1',
      });
      assert.ok(delivery.deliveryId);
      assert.deepEqual(await stores().notifyDeliveries.findByMessage('discord', 'msg-1'), delivery);
      assert.equal(await stores().notifyDeliveries.findByMessage('slack', 'msg-1'), undefined);
    });

    it('finds the newest delivery into a channel', async () => {
      await stores().notifyDeliveries.record({
        wsId: 'ws-old',
        channelType: 'slack',
        channelId: 'D1',
        messageId: '1.1',
        recipient: '',
      });
      await stores().notifyDeliveries.record({
        wsId: 'ws-new',
        channelType: 'slack',
        channelId: 'D1',
        messageId: '1.2',
        recipient: '',
      });
      assert.equal((await stores().notifyDeliveries.findLatestInChannel('slack', 'D1'))?.wsId, 'ws-new');
      assert.equal(await stores().notifyDeliveries.findLatestInChannel('slack', 'D2'), undefined);
    });
  });
}
