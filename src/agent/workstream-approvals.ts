/**
 * Deciding approvals: the agent's one place for who may decide, whether a request is still live, and what a finished
 * row means. The gateway only maps the outcome to a reply and a card (ADR 0008).
 */
import type { ApprovalRow } from '../storage/approval-store.js';
import { approvalViewOf, SYSTEM_DECIDER } from './approval-record.js';
import { mayControl } from './ownership.js';
import type { ApprovalDecisionInput, ApprovalVerdict, DecisionCheck, ResolveOutcome } from './workstream-api.js';
import type { WorkstreamEnv } from './workstream-env.js';

type Decider = Pick<ApprovalDecisionInput, 'decidedBy' | 'isAdmin'>;

/** The ownership rule (`mayControl`) applied to a row; admin rights come from the caller or the user row. */
async function mayDecide(env: WorkstreamEnv, row: ApprovalRow, decider: Decider): Promise<boolean> {
  if (mayControl(row.ownerUserId, { userId: decider.decidedBy, isAdmin: decider.isAdmin === true })) return true;
  const user = await env.stores.users.getUser(decider.decidedBy);
  return user?.isAdmin === true;
}

function verdictOf(row: ApprovalRow): ApprovalVerdict {
  const view = approvalViewOf(row);
  if (view.state === 'decided')
    return {
      outcome: 'decided',
      approved: view.approved,
      always: view.always,
      feedback: view.feedback,
      decidedBy: view.decidedBy,
    };
  return { outcome: 'cancelled', feedback: view.state === 'cancelled' ? view.feedback : null };
}

function alreadyDecided(row: ApprovalRow, decider: Decider): ResolveOutcome {
  return { status: 'already-decided', verdict: verdictOf(row), byYou: row.decidedBy === decider.decidedBy };
}

/** The checks of a click without deciding: used before a feedback form opens. */
export async function checkApprovalRow(
  env: WorkstreamEnv,
  approvalId: string,
  decider: Decider,
): Promise<DecisionCheck> {
  const row = await env.stores.approvals.get(approvalId);
  if (row === undefined) return { status: 'not-found' };
  if (!(await mayDecide(env, row, decider))) return { status: 'forbidden' };
  if (row.state !== 'pending')
    return { status: 'already-decided', verdict: verdictOf(row), byYou: row.decidedBy === decider.decidedBy };
  return { status: 'pending' };
}

/**
 * A pending row no turn waits for, even after restoring its workstream (closed or deleted workstream, a newer
 * request took its place, a format that cannot resume): it is ended by the system so it never resumes later.
 */
async function endStale(env: WorkstreamEnv, row: ApprovalRow, decider: Decider): Promise<ResolveOutcome> {
  env.logger.warn({ wsId: row.wsId, approvalId: row.approvalId }, 'approval clicked but no turn waits for it');
  const ended = await env.stores.approvals.resolve(row.approvalId, {
    approved: false,
    always: false,
    feedback: 'Cancelled',
    decidedBy: SYSTEM_DECIDER,
  });
  if (ended === undefined) return { status: 'not-found' };
  if (!ended.changed) return alreadyDecided(ended.row, decider);
  return { status: 'cancelled', wsId: row.wsId, reason: 'stale' };
}

/**
 * Resolves an approval row once. When no turn in this process waits for it (a restart), the workstream is
 * restored first (`restore`), which registers a waiter for the stored calls; then the decision wakes it.
 * When still no turn waits, nothing could run the calls: the row is ended by the system and the outcome is `cancelled`.
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
  if (row.state !== 'pending') return alreadyDecided(row, decision);
  if (!env.waiters.has(approvalId)) await restore(row.wsId);
  if (!env.waiters.has(approvalId)) return endStale(env, row, decision);
  const outcome = await writeDecision(env, row, decision);
  if (outcome.status !== 'decided') return outcome;
  const { approved, always, feedback } = outcome;
  if (env.waiters.wake({ approvalId, approved, always, feedback, decidedBy: decision.decidedBy })) return outcome;
  // The turn stopped waiting while the row was written (a cancel or close won the race): it reports the cancellation.
  env.logger.warn({ wsId: row.wsId, approvalId }, 'approval resolved but the turn stopped waiting meanwhile');
  return { status: 'cancelled', wsId: row.wsId, reason: 'turn-ended' };
}

/** The one-winner row update of a decision: `decided` for the click that changed the row. */
async function writeDecision(
  env: WorkstreamEnv,
  row: ApprovalRow,
  decision: ApprovalDecisionInput,
): Promise<ResolveOutcome> {
  const always = decision.approved && decision.always === true;
  const feedback = decision.feedback?.trim() ? decision.feedback.trim() : null;
  const result = await env.stores.approvals.resolve(row.approvalId, {
    approved: decision.approved,
    always,
    feedback,
    decidedBy: decision.decidedBy,
  });
  if (result === undefined) return { status: 'not-found' };
  if (!result.changed) return alreadyDecided(result.row, decision);
  return { status: 'decided', wsId: row.wsId, approved: decision.approved, always, feedback };
}
