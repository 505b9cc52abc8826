/**
 * The admin audit trail (ADR 0035): every admin change, through the API or the CLI, is written to `admin_audit` with
 * who made it, what, the target and how it ended, and logged. `sandpiper audit` and `GET /v1/api/admin/audit` list it.
 */
import { z } from 'zod';
import { describeError, GatewayError } from '../../shared/errors.js';
import type { Logger } from '../../shared/logger.js';
import type { AdminAuditEntry, AdminAuditStore } from '../../storage/index.js';
import { parseAdminInput } from './admin-input.js';

export interface AuditedChange {
  actor: string;
  action: string;
  target?: string;
  /** A short description without secrets (never env or header values). */
  detail?: string;
}

export interface AuditTrail {
  store: Pick<AdminAuditStore, 'record'>;
  logger?: Logger;
}

/**
 * Runs `work` and records the change with its outcome: `ok`, or the error's code (the error is rethrown). A change
 * whose audit row cannot be written fails: an admin change is not made without a trace.
 */
export async function audited<T>(trail: AuditTrail, change: AuditedChange, work: () => Promise<T>): Promise<T> {
  let result: T;
  try {
    result = await work();
  } catch (error) {
    await record(trail, change, error instanceof GatewayError ? error.code : 'INTERNAL');
    throw error;
  }
  await record(trail, change, 'ok');
  return result;
}

async function record(trail: AuditTrail, change: AuditedChange, outcome: string): Promise<void> {
  const entry = {
    actor: change.actor,
    action: change.action,
    target: change.target ?? '',
    outcome,
    detail: change.detail ?? '',
  };
  trail.logger?.info({ audit: entry }, `admin change ${entry.action} by ${entry.actor}: ${outcome}`);
  try {
    await trail.store.record(entry);
  } catch (error) {
    trail.logger?.error({ err: describeError(error), audit: entry }, 'could not write the admin audit row');
    throw new GatewayError('INTERNAL', `${entry.action} ended (${outcome}) but its audit row could not be written`, {
      cause: error,
    });
  }
}

export interface AuditView {
  audit_id: number;
  actor: string;
  action: string;
  target: string;
  outcome: string;
  detail: string;
  created: string;
}

const limitSchema = z.coerce
  .number({ error: 'limit must be a number' })
  .int('limit must be a whole number')
  .min(1, 'limit must be 1-1000')
  .max(1000, 'limit must be 1-1000');

/** The newest entries first (`limit` 1-1000, default 50). */
export async function listAudit(store: Pick<AdminAuditStore, 'list'>, rawLimit: unknown): Promise<AuditView[]> {
  const limit = rawLimit === undefined || rawLimit === '' ? 50 : parseAdminInput(limitSchema, rawLimit);
  const rows = await store.list(limit);
  return rows.map((row: AdminAuditEntry) => ({
    audit_id: row.auditId,
    actor: row.actor,
    action: row.action,
    target: row.target,
    outcome: row.outcome,
    detail: row.detail,
    created: row.created,
  }));
}

/** A server URL as the audit shows it: scheme, host and path only (no credentials, no query). */
export function auditUrl(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.protocol}//${parsed.host}${parsed.pathname}`;
  } catch {
    return '(invalid url)';
  }
}
