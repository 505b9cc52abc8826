/** Resolving approval clicks: ownership, idempotency through the row, and waking (or restoring) the waiting turn. */
import type { ApprovalRow } from '../storage/approval-store.js';
import type { ApprovalDecisionInput, ResolveOutcome } from './workstream-api.js';
import type { WorkstreamEnv } from './workstream-env.js';

/** `decidedBy` of rows ended without a person's decision (the same value as the workstream's SYSTEM_DECIDER). */
const SYSTEM_DECIDER = 'system';

function alreadyDecided(row: ApprovalRow): ResolveOutcome {
  return { status: 'already-decided', approved: row.state === 'approved' || row.state === 'executed', decidedBy: row.decidedBy };
}

async function mayDecide(env: WorkstreamEnv, row: ApprovalRow, decision: ApprovalDecisionInput): Promise<boolean> {
  if (decision.decidedBy === row.ownerUserId || decision.isAdmin === true) return true;
  const user = await env.stores.users.getUser(decision.decidedBy);
  return user?.isAdmin === true;
}

/**
 * A pending row no turn waits for, even after restoring its workstream (closed or deleted workstream, a newer
 * request took its place, a format that cannot resume): it is ended by the system so it never resumes later.
 */
async function endStale(env: WorkstreamEnv, row: ApprovalRow): Promise<ResolveOutcome> {
  env.logger.warn({ wsId: row.wsId, approvalId: row.approvalId }, 'approval clicked but no turn waits for it');
  const ended = await env.stores.approvals.resolve(row.approvalId, { approved: false, always: false, feedback: 'Cancelled', decidedBy: SYSTEM_DECIDER });
  if (ended === undefined) return { status: 'not-found' };
  if (!ended.changed) return alreadyDecided(ended.row);
  return { status: 'stale', wsId: row.wsId };
}

/**
 * Resolves an approval row once. When no turn in this process waits for it (a restart), the workstream is
 * restored first (`restore`), which registers a waiter for the stored calls; then the decision wakes it.
 * When still no turn waits, nothing could run the calls: the row is ended by the system and the outcome is `stale`.
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
  if (!env.waiters.has(approvalId)) return endStale(env, row);
  const always = decision.approved && decision.always === true;
  const feedback = decision.feedback?.trim() ? decision.feedback.trim() : null;
  const result = await env.stores.approvals.resolve(approvalId, { approved: decision.approved, always, feedback, decidedBy: decision.decidedBy });
  if (result === undefined) return { status: 'not-found' };
  if (!result.changed) return alreadyDecided(result.row);
  const woke = env.waiters.wake({ approvalId, approved: decision.approved, always, feedback, decidedBy: decision.decidedBy });
  if (woke) return { status: 'resolved', wsId: row.wsId };
  // The turn stopped waiting while the row was written (a cancel or close won the race): it reports the cancellation.
  env.logger.warn({ wsId: row.wsId, approvalId }, 'approval resolved but the turn stopped waiting meanwhile');
  return { status: 'stale', wsId: row.wsId };
}
