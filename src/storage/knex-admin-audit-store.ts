/** AdminAuditStore on knex. */
import type { Knex } from 'knex';
import { isoNow } from '../shared/time.js';
import type { AdminAuditEntry, AdminAuditStore } from './admin-audit-store.js';
import { text, toNumber, type DbRow } from './rows.js';
import { guard } from './storage-errors.js';

export class KnexAdminAuditStore implements AdminAuditStore {
  constructor(private readonly knex: Knex) {}

  record(entry: Pick<AdminAuditEntry, 'actor' | 'action' | 'target' | 'outcome'> & { detail?: string }): Promise<void> {
    return guard('adminAudit.record', async () => {
      await this.knex('admin_audit').insert({
        actor: entry.actor,
        action: entry.action,
        target: entry.target,
        outcome: entry.outcome,
        detail: entry.detail ?? '',
        created: isoNow(),
      });
    });
  }

  list(limit: number): Promise<AdminAuditEntry[]> {
    return guard('adminAudit.list', async () => {
      const rows = (await this.knex('admin_audit').orderBy('audit_id', 'desc').limit(limit)) as DbRow[];
      return rows.map((row) => ({
        auditId: toNumber(row.audit_id),
        actor: text(row.actor),
        action: text(row.action),
        target: text(row.target),
        outcome: text(row.outcome),
        detail: text(row.detail),
        created: text(row.created),
      }));
    });
  }
}
