/** `sandpiper audit`: the admin changes (API and CLI), newest first: who, what, target, outcome (ADR 0035). */
import { listAudit } from '../gateway/admin/admin-audit.js';
import { UsageError } from '../shared/errors.js';
import type { CliCommand } from './cli-context.js';
import { JSON_OPTION, printList } from './cli-output.js';
import { requirePositionals, withStores } from './command-table.js';

export const auditCommand: CliCommand = {
  name: 'audit',
  usage: 'sandpiper audit [--limit N] [--json]',
  summary: 'list the admin changes (API and CLI), newest first: who made them, what, and how they ended',
  options: { ...JSON_OPTION, limit: { type: 'string' } },
  async run(context) {
    requirePositionals(context, 0, this.usage);
    const limit = context.flags['limit'];
    if (limit === true) throw new UsageError('--limit takes a number (1-1000)');
    const entries = await withStores(context, (stores) => listAudit(stores.adminAudit, limit));
    printList(context, 'audit', entries, {
      headers: ['created', 'actor', 'action', 'target', 'outcome', 'detail'],
      row: (entry) => [`${entry.created}Z`, entry.actor, entry.action, entry.target, entry.outcome, entry.detail],
      empty: 'no admin changes recorded',
    });
    return 0;
  },
};
