/**
 * Contract suite for the stores behind the coordination port (ADR 0052): identify slots (one identify per bucket per
 * window, also when instances race) and elicitation forms (an answer is written once, also when instances race).
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { useStores, type StoresFactory } from './stores-factory.js';

const WINDOW = 5_000;

export function coordinationStoresContract(label: string, factory: StoresFactory): void {
  describe(`IdentifySlotStore contract (${label})`, () => {
    const stores = useStores(factory);

    it('grants a bucket to exactly one of several racing instances, then makes the others wait out the window', async () => {
      const waits = await Promise.all([1, 2, 3, 4].map(() => stores().identifySlots.take('bot:0', WINDOW)));
      assert.equal(waits.filter((wait) => wait === 0).length, 1, `one winner: ${waits.join(',')}`);
      for (const wait of waits.filter((value) => value !== 0))
        assert.ok(wait > 0 && wait <= WINDOW, `waits within the window: ${wait}`);
      assert.equal(await stores().identifySlots.take('bot:1', WINDOW), 0, 'another bucket is free');
    });
  });

  describe(`ElicitationFormStore contract (${label})`, () => {
    const stores = useStores(factory);
    const form = (formId: string, expiresAt: number) => ({
      formId,
      holder: 'instance-a',
      server: 'forms',
      message: 'Who?',
      requestedSchema: { type: 'object', properties: { n: { type: 'string' } } },
      ownerUserId: 'u1',
      platform: 'discord',
      channelId: 'thread-1',
      expiresAt,
    });

    it('stores an open form, takes one answer of several racing ones, and keeps the schema as it was', async () => {
      await stores().elicitationForms.create(form('f1', Date.now() + 60_000), 0);
      const open = await stores().elicitationForms.get('f1');
      assert.equal(open?.answer, null);
      assert.deepEqual(open?.requestedSchema, { type: 'object', properties: { n: { type: 'string' } } });
      const won = await Promise.all(
        ['a', 'b', 'c'].map((who) => stores().elicitationForms.answer('f1', JSON.stringify({ who }), who)),
      );
      assert.equal(won.filter(Boolean).length, 1);
      const answered = await stores().elicitationForms.get('f1');
      assert.equal(JSON.parse(answered?.answer ?? '{}').who, answered?.decidedBy);
      assert.equal(await stores().elicitationForms.answer('missing', '{}', 'x'), false);
    });

    it('prunes forms that expired before the given time when a new one is stored', async () => {
      await stores().elicitationForms.create(form('old', 1_000), 0);
      await stores().elicitationForms.create(form('new', Date.now() + 60_000), 2_000);
      assert.equal(await stores().elicitationForms.get('old'), undefined);
      assert.ok(await stores().elicitationForms.get('new'));
    });
  });
}
