/** `approvals list`: pending approvals in the database, oldest first, with their age. */
import { formatAge } from '../gateway/admin/admin-input.js';
import { listPendingApprovals } from '../gateway/admin/admin-approvals.js';
import type { CliCommand } from './cli-context.js';
import { JSON_OPTION, printList } from './cli-output.js';
import { requirePositionals, withStores } from './command-table.js';

export const approvalsListCommand: CliCommand = {
  name: 'approvals list',
  usage: 'sandpiper approvals list [--json]',
  summary: 'list pending approvals (oldest first) with their age and tools',
  options: JSON_OPTION,
  async run(context) {
    requirePositionals(context, 0, this.usage);
    const approvals = await withStores(context, (stores) => listPendingApprovals(stores));
    printList(context, 'approvals', approvals, {
      headers: ['age', 'approval_id', 'owner', 'ws_id', 'kind', 'tools', 'channel'],
      row: (approval) => [
        formatAge(approval.age_seconds),
        approval.approval_id,
        approval.owner,
        approval.ws_id,
        approval.kind,
        approval.tools,
        approval.channel_type && approval.channel_id ? `${approval.channel_type}:${approval.channel_id}` : '',
      ],
      empty: 'no pending approvals',
    });
    return 0;
  },
};
