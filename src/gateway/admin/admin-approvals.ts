/** Admin view of pending approvals, oldest first, with their age and the tools they wait on. */
import type { ApprovalRow, ApprovalStore } from '../../storage/index.js';
import { ageSeconds } from './admin-input.js';

export interface ApprovalView {
  approval_id: string;
  ws_id: string;
  kind: string;
  owner_user_id: string;
  /** Approval labels (or tool names) of the calls that wait for the decision. */
  tools: string[];
  channel_type: string | null;
  channel_id: string | null;
  created: string;
  age_seconds: number;
}

/** Reads the waiting calls' labels from the stored items, leniently (an unreadable row lists no tools). */
function waitingTools(items: unknown): string[] {
  const calls = (items as { calls?: unknown } | null)?.calls;
  if (!Array.isArray(calls)) return [];
  return calls.flatMap((call: unknown) => {
    const entry = call as { status?: unknown; name?: unknown; item?: { approvalLabel?: unknown } };
    if (entry.status !== 'ask') return [];
    const label = entry.item?.approvalLabel;
    if (typeof label === 'string' && label !== '') return [label];
    return typeof entry.name === 'string' ? [entry.name] : [];
  });
}

function view(row: ApprovalRow, now: number): ApprovalView {
  return {
    approval_id: row.approvalId,
    ws_id: row.wsId,
    kind: row.kind,
    owner_user_id: row.ownerUserId,
    tools: waitingTools(row.items),
    channel_type: row.channelType,
    channel_id: row.channelId,
    created: row.created,
    age_seconds: ageSeconds(row.created, now),
  };
}

export async function listPendingApprovals(approvals: ApprovalStore, now = Date.now()): Promise<ApprovalView[]> {
  return (await approvals.listPending()).map((row) => view(row, now));
}
