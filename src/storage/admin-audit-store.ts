/** The admin audit trail (`admin_audit`): every admin change, appended, listed newest first. */

export interface AdminAuditEntry {
  auditId: number;
  /** The admin token's subject (`api:<sub>`) or `cli:<OS user>`. */
  actor: string;
  /** What was done: `policy.add`, `mcp-server.remove`, `mcp.reload`, … */
  action: string;
  target: string;
  /** `ok`, or the error code the change failed with. */
  outcome: string;
  detail: string;
  created: string;
}

export interface AdminAuditStore {
  /** Appends one entry (`created` is now). */
  record(entry: Pick<AdminAuditEntry, 'actor' | 'action' | 'target' | 'outcome'> & { detail?: string }): Promise<void>;
  /** Newest first, at most `limit`. */
  list(limit: number): Promise<AdminAuditEntry[]>;
}
