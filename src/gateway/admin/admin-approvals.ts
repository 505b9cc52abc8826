/** Admin view of pending approvals, oldest first, with their age and the tools they wait on. */
import { decodeNetworkItems } from '../../agent/approval-record.js';
import type { ApprovalRow, ApprovalStore, UserStore } from '../../storage/index.js';
import { ageSeconds } from './admin-input.js';

export interface ApprovalView {
  approval_id: string;
  ws_id: string;
  kind: string;
  owner_user_id: string;
  /** The owner's username ('' when the user no longer exists). */
  owner: string;
  /** Approval labels (or tool names) of the calls that wait for the decision. */
  tools: string[];
  channel_type: string | null;
  channel_id: string | null;
  created: string;
  age_seconds: number;
}

/** Reads the waiting calls' labels from the stored items, leniently (an unreadable row lists no tools). */
export function waitingTools(items: unknown): string[] {
  const network = decodeNetworkItems(items);
  if (network !== undefined) return [network.network.label];
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

function view(row: ApprovalRow, owner: string, now: number): ApprovalView {
  return {
    approval_id: row.approvalId,
    ws_id: row.wsId,
    kind: row.kind,
    owner_user_id: row.ownerUserId,
    owner,
    tools: waitingTools(row.items),
    channel_type: row.channelType,
    channel_id: row.channelId,
    created: row.created,
    age_seconds: ageSeconds(row.created, now),
  };
}

export async function listPendingApprovals(
  stores: { approvals: ApprovalStore; users: UserStore },
  now = Date.now(),
): Promise<ApprovalView[]> {
  const rows = await stores.approvals.listPending();
  const owners = new Map<string, string>();
  for (const id of new Set(rows.map((row) => row.ownerUserId)))
    owners.set(id, (await stores.users.getUser(id))?.username ?? '');
  return rows.map((row) => view(row, owners.get(row.ownerUserId) ?? '', now));
}
