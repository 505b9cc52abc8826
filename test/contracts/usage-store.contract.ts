/** Contract suite for usage_daily: rows added with the workstream write, reports per grouping, budgets' sums, purge. */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { UsageDelta } from '../../src/storage/usage-store.js';
import { useStores, type StoresFactory } from './stores-factory.js';

const delta = (day: string, model: string, turns: number, input: number, output: number, cached = 0): UsageDelta => ({
  day,
  model,
  turns,
  inputTokens: input,
  outputTokens: output,
  cachedTokens: cached,
});

export function usageStoreContract(label: string, factory: StoresFactory): void {
  describe(`UsageStore contract (${label})`, () => {
    const stores = useStores(factory);

    it('adds each group of a conversation to its row of the day and model, with the owner and the thread', async () => {
      const alice = await stores().users.createUser('alice');
      const bob = await stores().users.createUser('bob');
      await stores().workstreams.create({ wsId: 'ws-a', userId: alice.userId, name: 'Fix the build', modelAlias: 'm' }, { route: { channelType: 'discord', channelId: 't-a' } });
      await stores().workstreams.create({ wsId: 'ws-b', userId: bob.userId, name: 'Plan', modelAlias: 'm' });
      await stores().workstreams.applyChanges([
        { wsId: 'ws-a', inputTokens: 120, outputTokens: 12, usage: [delta('2026-12-04', 'gpt-x', 1, 100, 10, 40), delta('2026-12-04', 'claude-y', 1, 20, 2)] },
        { wsId: 'ws-b', usage: [delta('2026-12-05', 'gpt-x', 1, 7, 3)] },
        // A conversation deleted meanwhile: its usage is skipped, the rest is written.
        { wsId: 'ws-gone', usage: [delta('2026-12-05', 'gpt-x', 1, 1000, 1000)] },
      ]);
      await stores().workstreams.applyChanges([{ wsId: 'ws-a', state: 'idle', usage: [delta('2026-12-04', 'gpt-x', 0, 50, 5)] }]);

      const byUser = await stores().usage.report('user', '2026-12-01');
      assert.deepEqual(
        byUser.map((line) => [line.day, line.label, line.turns, line.inputTokens, line.outputTokens]),
        [
          ['2026-12-05', 'bob', 1, 7, 3],
          ['2026-12-04', 'alice', 2, 170, 17],
        ],
      );
      assert.equal(byUser[1]?.key, alice.userId);
      const byModel = await stores().usage.report('model', '2026-12-04');
      assert.deepEqual(
        byModel.map((line) => [line.day, line.key, line.inputTokens, line.cachedTokens]),
        [
          ['2026-12-05', 'gpt-x', 7, 0],
          ['2026-12-04', 'claude-y', 20, 0],
          ['2026-12-04', 'gpt-x', 150, 40],
        ],
      );
      const byChannel = await stores().usage.report('channel', '2026-12-05');
      assert.deepEqual(byChannel.map((line) => [line.key, line.inputTokens]), [['', 7]]);
      const byConversation = await stores().usage.report('conversation', '2026-12-04');
      assert.deepEqual(byConversation.map((line) => [line.day, line.key, line.label]), [
        ['2026-12-05', 'ws-b', 'Plan'],
        ['2026-12-04', 'ws-a', 'Fix the build'],
      ]);
      assert.equal(await stores().usage.userTokensOn(alice.userId, '2026-12-04'), 187);
      assert.equal(await stores().usage.userTokensOn(alice.userId, '2026-12-05'), 0);
      assert.equal(await stores().usage.channelTokensOn('discord:t-a', '2026-12-04'), 187);
      // The counters on the workstream row are still kept beside it.
      assert.equal((await stores().workstreams.get('ws-a'))?.inputTokens, 120);
    });

    it('counts a Slack thread (`<channel>:<thread ts>`) for its channel', async () => {
      const dana = await stores().users.createUser('dana');
      for (const [wsId, ts] of [['ws-s1', '1700.1'], ['ws-s2', '1700.2']] as const) {
        await stores().workstreams.create({ wsId, userId: dana.userId, name: wsId, modelAlias: 'm' }, { route: { channelType: 'slack', channelId: `C9:${ts}` } });
        await stores().workstreams.applyChanges([{ wsId, usage: [delta('2026-11-30', 'gpt-x', 1, 10, 1)] }]);
      }
      assert.equal(await stores().usage.channelTokensOn('slack:C9', '2026-11-30'), 22);
      const lines = await stores().usage.report('channel', '2026-11-30');
      assert.deepEqual(lines.filter((line) => line.day === '2026-11-30').map((line) => [line.key, line.turns]), [['slack:C9', 2]]);
    });

    it('is purged by day with the retention and removed with its user', async () => {
      const carol = await stores().users.createUser('carol');
      await stores().workstreams.create({ wsId: 'ws-c', userId: carol.userId, name: 'c', modelAlias: 'm' });
      await stores().workstreams.applyChanges([{ wsId: 'ws-c', usage: [delta('2020-01-01', 'old', 1, 5, 5), delta('2026-12-05', 'new', 1, 9, 9)] }]);
      const purged = await stores().lifecycle.purgeExpired({ conversationsDays: 30, notifyDeliveriesDays: 0, ledgerDays: 0 }, Date.parse('2026-12-05T12:00:00Z'));
      assert.ok(purged.usageRows >= 1);
      const left = (await stores().usage.report('model', '2000-01-01')).filter((line) => line.key === 'old' || line.key === 'new');
      assert.deepEqual(left.map((line) => line.key), ['new']);
      await stores().lifecycle.removeUser(carol.userId);
      assert.equal(await stores().usage.userTokensOn(carol.userId, '2026-12-05'), 0);
      assert.deepEqual((await stores().usage.report('model', '2000-01-01')).filter((line) => line.key === 'new'), []);
    });
  });
}
