/** Admin operations on standing approval grants (ADR 0046): list, add, revoke; and the approvals history. */
import { z } from 'zod';
import { GatewayError } from '../../shared/errors.js';
import { isoFromMs } from '../../shared/time.js';
import type { ApprovalGrant, ApprovalStore, GrantStore, UserStore } from '../../storage/index.js';
import { approvalViewOf } from '../../agent/approval-record.js';
import { waitingTools } from './admin-approvals.js';
import { parseAdminInput } from './admin-input.js';

export interface GrantView {
  grant_id: string;
  scope: string;
  /** The workstream id, the username (user scope) or `<platform>:<channel id>`. */
  target: string;
  tool: string;
  args: string | null;
  created_by: string;
  created: string;
  expires: string | null;
  revoked: string | null;
  /** `active`, `expired` or `revoked`. */
  status: string;
}

const printable = (value: string): boolean => !/[\u0000-\u001f\u007f]/.test(value);
const glob = (what: string) =>
  z
    .string()
    .trim()
    .min(1, `${what} must not be empty`)
    .max(500, `${what} is longer than 500 characters`)
    .refine(printable, `${what} must not contain control characters`);

/** `30m`, `12h`, `7d` from now, or an ISO time (UTC). */
const DURATION = /^(\d{1,6})([mhd])$/;
const UNIT_MS = { m: 60_000, h: 3_600_000, d: 86_400_000 } as const;

/** The stored expiry of `--expires`, or a BAD_REQUEST naming the accepted forms. */
export function parseExpiry(raw: string, now: number): string {
  const match = DURATION.exec(raw.trim());
  if (match !== null) return isoFromMs(now + Number(match[1]) * UNIT_MS[match[2] as keyof typeof UNIT_MS]);
  const at = Date.parse(/[zZ]|[+-]\d\d:\d\d$/.test(raw) ? raw : `${raw}Z`);
  if (!Number.isFinite(at))
    throw new GatewayError('BAD_REQUEST', 'expires must be a duration (30m, 12h, 7d) or an ISO time');
  if (at <= now) throw new GatewayError('BAD_REQUEST', 'expires must be in the future');
  return isoFromMs(at);
}

/** The body of `sandpiper approvals grants add`. */
export const grantInputSchema = z.strictObject({
  scope: z.enum(['conversation', 'user', 'channel'], { error: 'scope must be conversation, user or channel' }),
  target: z
    .string({ error: 'target is required' })
    .trim()
    .min(1, 'target must not be empty')
    .max(255, 'target is longer than 255 characters')
    .refine(printable, 'target must not contain control characters'),
  tool: glob('tool'),
  args: glob('args').optional(),
  expires: z.string().trim().min(1).max(40).optional(),
});

export type GrantInput = z.input<typeof grantInputSchema>;

type GrantStores = { grants: GrantStore; users: UserStore; workstreams: { get(wsId: string): Promise<unknown> } };

export function grantStatus(grant: ApprovalGrant, nowIso: string): 'active' | 'expired' | 'revoked' {
  if (grant.revoked !== null) return 'revoked';
  return grant.expires !== null && grant.expires <= nowIso ? 'expired' : 'active';
}

async function viewOf(users: UserStore, grant: ApprovalGrant, nowIso: string): Promise<GrantView> {
  const target =
    grant.scope === 'user' ? ((await users.getUser(grant.scopeKey))?.username ?? grant.scopeKey) : grant.scopeKey;
  const creator = (await users.getUser(grant.createdBy))?.username ?? grant.createdBy;
  return {
    grant_id: grant.grantId,
    scope: grant.scope,
    target,
    tool: grant.label,
    args: grant.argsGlob,
    created_by: creator,
    created: grant.created,
    expires: grant.expires,
    revoked: grant.revoked,
    status: grantStatus(grant, nowIso),
  };
}

async function userIdOf(users: UserStore, name: string): Promise<string> {
  const user = (await users.getUserByUsername(name)) ?? (await users.getUser(name));
  if (user === undefined) throw new GatewayError('NOT_FOUND', `no user named ${name}`);
  return user.userId;
}

/** Grants newest first: in force only unless `all`; of one user (username or id) when given. */
export async function listGrants(
  stores: GrantStores,
  filter: { user?: string; all?: boolean },
  now = Date.now(),
): Promise<GrantView[]> {
  const nowIso = isoFromMs(now);
  const userId = filter.user === undefined ? undefined : await userIdOf(stores.users, filter.user);
  const grants = await stores.grants.list({
    ...(userId === undefined ? {} : { userId }),
    all: filter.all === true,
    now: nowIso,
  });
  return Promise.all(grants.map((grant) => viewOf(stores.users, grant, nowIso)));
}

async function scopeKeyOf(
  stores: GrantStores,
  scope: 'conversation' | 'user' | 'channel',
  target: string,
): Promise<string> {
  if (scope === 'user') return userIdOf(stores.users, target);
  if (scope === 'conversation') {
    if ((await stores.workstreams.get(target)) === undefined)
      throw new GatewayError('NOT_FOUND', `no conversation ${target}`);
    return target;
  }
  if (!/^[a-z]+:[^:\s]+$/.test(target))
    throw new GatewayError('BAD_REQUEST', 'a channel target is <platform>:<channel id>, e.g. slack:C0123');
  return target;
}

export async function addGrant(
  stores: GrantStores,
  input: unknown,
  createdBy: string,
  now = Date.now(),
): Promise<GrantView> {
  const parsed = parseAdminInput(grantInputSchema, input);
  const scopeKey = await scopeKeyOf(stores, parsed.scope, parsed.target);
  const grant = await stores.grants.create({
    scope: parsed.scope,
    scopeKey,
    label: parsed.tool,
    createdBy,
    ...(parsed.args === undefined ? {} : { argsGlob: parsed.args }),
    ...(parsed.expires === undefined ? {} : { expires: parseExpiry(parsed.expires, now) }),
  });
  return viewOf(stores.users, grant, isoFromMs(now));
}

export async function revokeGrant(
  stores: GrantStores,
  grantId: string,
  by: string,
  now = Date.now(),
): Promise<GrantView> {
  const grant = await stores.grants.get(grantId);
  if (grant === undefined) throw new GatewayError('NOT_FOUND', `no grant ${grantId}`);
  if (!(await stores.grants.revoke(grantId, by)))
    throw new GatewayError('CONFLICT', `grant ${grantId} is already revoked`);
  return viewOf(stores.users, { ...grant, revoked: isoFromMs(now), revokedBy: by }, isoFromMs(now));
}

export interface ApprovalHistoryView {
  decided: string | null;
  approval_id: string;
  ws_id: string;
  kind: string;
  tools: string[];
  owner: string;
  /** `approved`, `always`, `rejected` or `cancelled`. */
  outcome: string;
  decided_by: string;
  feedback: string | null;
}

/** Who decided what, when: decided and cancelled approvals, newest first. */
export async function approvalsHistory(
  stores: { approvals: ApprovalStore; users: UserStore },
  filter: { user?: string; limit: number },
): Promise<ApprovalHistoryView[]> {
  const userId = filter.user === undefined ? undefined : await userIdOf(stores.users, filter.user);
  const rows = await stores.approvals.listDecided({ limit: filter.limit, ...(userId === undefined ? {} : { userId }) });
  const names = new Map<string, string>();
  const nameOf = async (id: string): Promise<string> => {
    if (!names.has(id)) names.set(id, (await stores.users.getUser(id))?.username ?? id);
    return names.get(id) ?? id;
  };
  const views: ApprovalHistoryView[] = [];
  for (const row of rows) {
    const view = approvalViewOf(row);
    const outcome =
      view.state === 'decided' ? (view.approved ? (view.always ? 'always' : 'approved') : 'rejected') : 'cancelled';
    views.push({
      decided: row.decided,
      approval_id: row.approvalId,
      ws_id: row.wsId,
      kind: row.kind,
      tools: row.kind === 'plan' ? ['plan'] : waitingTools(row.items),
      owner: await nameOf(row.ownerUserId),
      outcome,
      decided_by: row.decidedBy === null ? '' : await nameOf(row.decidedBy),
      feedback: row.feedback,
    });
  }
  return views;
}
