/** Resolving approval clicks: ownership, idempotency through the row, and waking (or restoring) the waiting turn. */
import type { ApprovalRow } from '../storage/approval-store.js';
import type { ApprovalDecisionInput, ResolveOutcome } from './workstream-api.js';
import type { WorkstreamEnv } from './workstream-env.js';

function alreadyDecided(row: ApprovalRow): ResolveOutcome {
  return { status: 'already-decided', approved: row.state === 'approved' || row.state === 'executed', decidedBy: row.decidedBy };
}

async function mayDecide(env: WorkstreamEnv, row: ApprovalRow, decision: ApprovalDecisionInput): Promise<boolean> {
  if (decision.decidedBy === row.ownerUserId || decision.isAdmin === true) return true;
  const user = await env.stores.users.getUser(decision.decidedBy);
  return user?.isAdmin === true;
}

/**
 * Resolves an approval row once. When no turn in this process waits for it (a restart), the workstream is
 * restored first (`restore`), which registers a waiter for the stored calls; then the decision wakes it.
 */
export async function resolveApprovalRow(
  env: WorkstreamEnv,
  restore: (wsId: string) => Promise<unknown>,
  approvalId: string,
  decision: ApprovalDecisionInput,
): Promise<ResolveOutcome> {
  const row = await env.stores.approvals.get(approvalId);
  if (row === undefined) return { status: 'not-found' };
  if (!(await mayDecide(env, row, decision))) return { status: 'forbidden' };
  if (row.state !== 'pending') return alreadyDecided(row);
  if (!env.waiters.has(approvalId)) await restore(row.wsId);
  const always = decision.approved && decision.always === true;
  const feedback = decision.feedback?.trim() ? decision.feedback.trim() : null;
  const result = await env.stores.approvals.resolve(approvalId, { approved: decision.approved, always, feedback, decidedBy: decision.decidedBy });
  if (result === undefined) return { status: 'not-found' };
  if (!result.changed) return alreadyDecided(result.row);
  const woke = env.waiters.wake({ approvalId, approved: decision.approved, always, feedback, decidedBy: decision.decidedBy });
  if (!woke) env.logger.warn({ wsId: row.wsId, approvalId }, 'approval resolved but no turn waits for it');
  return { status: 'resolved', wsId: row.wsId };
}
