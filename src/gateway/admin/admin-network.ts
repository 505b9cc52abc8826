/** Admin view of the network decisions of sandboxed tools (`network` approval rows), newest first. */
import { approvalViewOf, decodeNetworkItems } from '../../agent/approval-record.js';
import type { ApprovalRow, ApprovalStore, UserStore } from '../../storage/index.js';

export interface NetworkDecisionView {
  approval_id: string;
  ws_id: string;
  tool: string;
  /** `host:port` the process asked for. */
  destination: string;
  /** `pending`, `allowed once`, `always here`, `denied` or `cancelled`. */
  decision: string;
  /** The decider's username ('' while pending or when the row ended without a person). */
  decided_by: string;
  created: string;
  decided: string | null;
}

function decisionOf(row: ApprovalRow): { decision: string; deciderId: string | undefined } {
  const view = approvalViewOf(row);
  if (view.state === 'pending') return { decision: 'pending', deciderId: undefined };
  if (view.state === 'cancelled') return { decision: 'cancelled', deciderId: undefined };
  return {
    decision: !view.approved ? 'denied' : view.always ? 'always here' : 'allowed once',
    deciderId: view.decidedBy,
  };
}

/** The newest `limit` network decisions with their deciders' names. */
export async function listNetworkDecisions(
  stores: { approvals: ApprovalStore; users: UserStore },
  limit: number,
): Promise<NetworkDecisionView[]> {
  const rows = await stores.approvals.listByKind('network', limit);
  const names = new Map<string, string>();
  const views: NetworkDecisionView[] = [];
  for (const row of rows) {
    const { decision, deciderId } = decisionOf(row);
    if (deciderId !== undefined && !names.has(deciderId))
      names.set(deciderId, (await stores.users.getUser(deciderId))?.username ?? '');
    views.push({
      ...requestOf(row),
      decision,
      decided_by: deciderId === undefined ? '' : (names.get(deciderId) ?? ''),
    });
  }
  return views;
}

function requestOf(row: ApprovalRow): Omit<NetworkDecisionView, 'decision' | 'decided_by'> {
  const request = decodeNetworkItems(row.items)?.network;
  const host = request?.host ?? '?';
  const port = request?.port ?? 0;
  return {
    approval_id: row.approvalId,
    ws_id: row.wsId,
    tool: request?.tool ?? '?',
    destination: host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`,
    created: row.created,
    decided: row.decided,
  };
}
