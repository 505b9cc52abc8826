/** The budget rule on its own: which limit applies, when nothing is read, and the note's reset time. */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { budgetSpentNote, createTokenBudget, type BudgetSettings, type BudgetStores } from './token-budget.js';

const NOON = Date.parse('2026-12-05T12:00:00Z');
const none: BudgetSettings = { userDailyTokens: 0, users: {}, channelDailyTokens: 0, channels: {} };

/** Usage and users in memory; every read is counted. */
function storesWith(used: { users?: Record<string, number>; channels?: Record<string, number> }, reads: string[]): BudgetStores {
  return {
    usage: {
      userTokensOn: (userId, day) => (reads.push(`user ${userId} ${day}`), Promise.resolve(used.users?.[userId] ?? 0)),
      channelTokensOn: (channel, day) => (reads.push(`channel ${channel} ${day}`), Promise.resolve(used.channels?.[channel] ?? 0)),
    },
    users: { getUser: (userId) => (reads.push(`name ${userId}`), Promise.resolve({ userId, username: userId.replace('u-', ''), isAdmin: false, disabled: false, created: '' })) },
    routes: { getRouteByWorkstream: (wsId) => (reads.push(`route ${wsId}`), Promise.resolve({ channelType: 'slack', channelId: `C1:${wsId}`, wsId, nodeId: '', ownerUserId: null, created: '', liveState: null })) },
  };
}

describe('createTokenBudget', () => {
  it('is absent when no budget is set, so a turn reads nothing', () => {
    assert.equal(createTokenBudget(none, storesWith({}, [])), undefined);
    assert.equal(createTokenBudget({ ...none, users: { alice: 0 }, channels: { 'slack:C1': 0 } }, storesWith({}, [])), undefined);
  });

  it('refuses at the budget, per username override, and reads only what applies', async () => {
    const reads: string[] = [];
    const budget = createTokenBudget({ ...none, userDailyTokens: 100, users: { rich: 0, small: 10 } }, storesWith({ users: { 'u-bob': 100, 'u-rich': 1e9, 'u-small': 10, 'u-amy': 99 } }, reads), () => NOON);
    assert.ok(budget);
    assert.match((await budget({ userId: 'u-bob', wsId: 'w' })) ?? '', /^Your daily token budget \(100 tokens\) is spent/);
    assert.equal(await budget({ userId: 'u-amy', wsId: 'w' }), undefined);
    assert.equal(await budget({ userId: 'u-rich', wsId: 'w' }), undefined);
    assert.match((await budget({ userId: 'u-small', wsId: 'w' })) ?? '', /\(10 tokens\)/);
    assert.ok(reads.every((read) => !read.startsWith('route')), 'no channel budget: no route read');
    assert.ok(reads.includes('user u-bob 2026-12-05'));
  });

  it('refuses in a channel whose budget is spent; a Slack thread counts for its channel', async () => {
    const reads: string[] = [];
    const budget = createTokenBudget({ ...none, channelDailyTokens: 1000, channels: { 'slack:C1': 50 } }, storesWith({ channels: { 'slack:C1': 50 } }, reads), () => NOON);
    assert.match((await budget?.({ userId: 'u-bob', wsId: '1700.1' })) ?? '', /^This channel's daily token budget \(50 tokens\) is spent/);
    assert.deepEqual(reads, ['route 1700.1', 'channel slack:C1 2026-12-05']);
  });
});

describe('budgetSpentNote', () => {
  it('names the reset at midnight UTC and the time left', () => {
    assert.match(budgetSpentNote('Your daily token budget', 2_000_000, NOON), /\(2,000,000 tokens\).*resets at 00:00 UTC, in 12 h 0 min\.$/);
    assert.match(budgetSpentNote('x', 1, Date.parse('2026-12-05T23:59:30Z')), /in 1 min\.$/);
  });
});
