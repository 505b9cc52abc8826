/** Rows the admin commands and endpoints read but no admin command writes: a pending approval, a day of token usage. */
import type { Stores } from '../../src/storage/index.js';

type Call = { name: string; status: string; item?: { approvalLabel: string } };

/** A pending tool approval `approvalId` of conversation `wsId`, owned by `username`, holding `calls`. */
export async function addPendingApproval(
  stores: Stores,
  approval: { approvalId: string; wsId: string; turnId: string; owner: string; calls: Call[] },
): Promise<string> {
  const ownerUserId = (await stores.users.getUserByUsername(approval.owner))?.userId ?? '';
  await stores.approvals.create({
    approvalId: approval.approvalId,
    wsId: approval.wsId,
    turnId: approval.turnId,
    kind: 'tools',
    ownerUserId,
    items: { version: 1, calls: approval.calls },
  });
  return ownerUserId;
}

/**
 * Conversation `ws-usage` ("Budget talk") of `username` with token usage on two days: today 2 turns, 1200 input, 80
 * output, 300 cached tokens of model gpt-x; 2000-01-01 one turn of 5 and 5.
 */
export async function addUsage(stores: Stores, username: string): Promise<void> {
  const userId = (await stores.users.getUserByUsername(username))?.userId ?? '';
  await stores.workstreams.create({ wsId: 'ws-usage', userId, name: 'Budget talk', modelAlias: 'm' });
  const today = new Date().toISOString().slice(0, 10);
  const usage = [
    { day: today, model: 'gpt-x', turns: 2, inputTokens: 1200, outputTokens: 80, cachedTokens: 300 },
    { day: '2000-01-01', model: 'gpt-x', turns: 1, inputTokens: 5, outputTokens: 5, cachedTokens: 0 },
  ];
  await stores.workstreams.applyChanges([{ wsId: 'ws-usage', usage }]);
}
