/**
 * Admin endpoints on the database (ADR 0035): users, tokens, tool policies, database-defined MCP servers, pending
 * approvals, the cluster's status and the audit trail. They take admin tokens only (signed with `auth.admin_secret`,
 * never the notify secret): `admin:read` for status and lists, `admin:write` for changes, and every change is
 * audited. The same operations (and the same validation) as the admin CLI commands.
 */
import { Hono, type Context } from 'hono';
import { listPendingApprovals } from '../../admin/admin-approvals.js';
import { audited, auditUrl, listAudit, type AuditTrail } from '../../admin/admin-audit.js';
import { readClusterStatus } from '../../admin/admin-status.js';
import { addMcpServer, listMcpServers, removeMcpServer } from '../../admin/admin-mcp-servers.js';
import { addPolicy, listPolicies, removePolicy } from '../../admin/admin-policies.js';
import { createTemplate, deleteTemplate, editTemplate, listTemplates, showTemplate } from '../../admin/admin-prompt-templates.js';
import { listUsage } from '../../admin/admin-usage.js';
import { listTokens, listUsers, revokeToken } from '../../admin/admin-users.js';
import { isPlainObject, safeParseJson } from '../../../shared/json.js';
import type { Logger } from '../../../shared/logger.js';
import type { PromptTemplateStore, Stores } from '../../../storage/index.js';
import { verifyAdminBearer, type AdminScope } from '../auth.js';
import { HttpError } from '../http-errors.js';

export interface AdminRoutesDeps {
  /** `auth.admin_secret`. */
  adminSecret: string;
  stores: Pick<Stores, 'users' | 'policies' | 'mcpServers' | 'approvals' | 'clusterStatus' | 'adminAudit' | 'promptTemplates' | 'usage'>;
  /** Heartbeat age after which `status` calls an instance stale (`instanceStaleAfterSeconds(config)`). */
  staleAfterSeconds: number;
  logger?: Logger;
}

export async function jsonObject(context: Context): Promise<Record<string, unknown>> {
  const parsed = safeParseJson(await context.req.text());
  if (!parsed.ok || !isPlainObject(parsed.value)) throw new HttpError(400, 'body must be a JSON object');
  return parsed.value;
}

export type AdminHandler = (context: Context, actor: string) => Promise<Response>;

/** Wraps a handler: the bearer must be an admin token granting `scope`; the handler gets who called (`api:<sub>`). */
export function withAdmin(adminSecret: string, scope: AdminScope, handler: AdminHandler): (context: Context) => Promise<Response> {
  return async (context) => {
    const principal = await verifyAdminBearer(context.req.header('authorization'), adminSecret, scope);
    return handler(context, `api:${principal.subject || 'admin'}`);
  };
}

const param = (context: Context, name: string): string => context.req.param(name) ?? '';

interface Described {
  target: string;
  detail?: string;
}

/** Target and detail of an add from its body (Hono caches the body, so the handler reads it again); never env or headers. */
async function bodyField(context: Context, field: string, detail: (body: Record<string, unknown>) => string): Promise<Described> {
  const parsed = safeParseJson(await context.req.text());
  const body = parsed.ok && isPlainObject(parsed.value) ? parsed.value : {};
  const value = body[field];
  return { target: typeof value === 'string' ? value.slice(0, 200) : '', detail: detail(body).slice(0, 200) };
}

const str = (value: unknown): string => (typeof value === 'string' ? value : '');
const policyDetail = (body: Record<string, unknown>): string => `action=${str(body['action'])}`;
const serverDetail = (body: Record<string, unknown>): string =>
  typeof body['url'] === 'string' ? `http: ${auditUrl(body['url'])}` : `stdio: ${str(body['command'])}${Array.isArray(body['args']) ? ` (${body['args'].length} args)` : ''}`;
const named = (name: string) => (context: Context): Described => ({ target: param(context, name) });

type Describe = (context: Context) => Promise<Described> | Described;

/** The two guards every admin route goes through: `read` checks the scope, `write` also audits the change. */
interface Guards {
  read: (handler: AdminHandler) => (context: Context) => Promise<Response>;
  write: (action: string, describe: Describe, handler: AdminHandler) => (context: Context) => Promise<Response>;
}

/** Prompt templates: list and show (`admin:read`); create, edit and delete manual ones (`admin:write`; MCP-owned: 403). */
function addTemplateRoutes(routes: Hono, store: PromptTemplateStore, { read, write }: Guards): void {
  const path = '/v1/api/admin/templates';
  routes.get(path, read(async (c) => c.json({ templates: await listTemplates(store) })));
  routes.get(`${path}/:name`, read(async (c) => c.json({ template: await showTemplate(store, param(c, 'name')) })));
  const created = (c: Context) => bodyField(c, 'name', () => '');
  routes.post(path, write('template.create', created, async (c, actor) => c.json({ template: await createTemplate(store, await jsonObject(c), actor) }, 201)));
  routes.patch(`${path}/:name`, write('template.edit', named('name'), async (c) => c.json({ template: await editTemplate(store, param(c, 'name'), await jsonObject(c)) })));
  routes.delete(`${path}/:name`, write('template.delete', named('name'), async (c) => c.json({ template: await deleteTemplate(store, param(c, 'name')) })));
}

function addUserRoutes(routes: Hono, users: AdminRoutesDeps['stores']['users'], { read, write }: Guards): void {
  routes.get('/v1/api/admin/users', read(async (context) => context.json({ users: await listUsers(users) })));
  routes.get(
    '/v1/api/admin/tokens',
    read(async (context) => {
      const username = context.req.query('username');
      return context.json({ tokens: await listTokens(users, username === '' ? undefined : username) });
    }),
  );
  routes.delete(
    '/v1/api/admin/tokens/:tokenId',
    write('token.revoke', named('tokenId'), async (c) => c.json(await revokeToken(users, param(c, 'tokenId')))),
  );
}

function addPolicyRoutes(routes: Hono, policies: AdminRoutesDeps['stores']['policies'], { read, write }: Guards): void {
  routes.get('/v1/api/admin/policies', read(async (context) => context.json({ policies: await listPolicies(policies) })));
  routes.post(
    '/v1/api/admin/policies',
    write(
      'policy.add',
      (c) => bodyField(c, 'pattern', policyDetail),
      async (c, actor) => c.json({ policy: await addPolicy(policies, await jsonObject(c), actor) }, 201),
    ),
  );
  routes.delete(
    '/v1/api/admin/policies/:key',
    write('policy.remove', named('key'), async (c) => c.json({ policy: await removePolicy(policies, param(c, 'key')) })),
  );
}

function addMcpServerRoutes(routes: Hono, servers: AdminRoutesDeps['stores']['mcpServers'], { read, write }: Guards): void {
  routes.get('/v1/api/admin/mcp/servers', read(async (context) => context.json({ servers: await listMcpServers(servers) })));
  routes.post(
    '/v1/api/admin/mcp/servers',
    write(
      'mcp-server.add',
      (c) => bodyField(c, 'name', serverDetail),
      async (c, actor) => c.json({ server: await addMcpServer(servers, await jsonObject(c), actor) }, 201),
    ),
  );
  routes.delete(
    '/v1/api/admin/mcp/servers/:name',
    write('mcp-server.remove', named('name'), async (c) => c.json({ server: await removeMcpServer(servers, param(c, 'name')) })),
  );
}

/** The read-only views: the cluster's status, pending approvals, the audit trail and token usage. */
function addStatusRoutes(routes: Hono, deps: AdminRoutesDeps, { read }: Guards): void {
  const { clusterStatus, approvals, users, adminAudit, usage } = deps.stores;
  routes.get('/v1/api/admin/status', read(async (c) => c.json(await readClusterStatus(clusterStatus, deps.staleAfterSeconds))));
  routes.get('/v1/api/admin/approvals', read(async (c) => c.json({ approvals: await listPendingApprovals({ approvals, users }) })));
  routes.get('/v1/api/admin/audit', read(async (c) => c.json({ audit: await listAudit(adminAudit, c.req.query('limit')) })));
  routes.get('/v1/api/admin/usage', read(async (c) => c.json({ usage: await listUsage(usage, { by: c.req.query('by'), since: c.req.query('since') }) })));
}

export function createAdminRoutes(deps: AdminRoutesDeps): Hono {
  const routes = new Hono();
  const trail: AuditTrail = { store: deps.stores.adminAudit, ...(deps.logger ? { logger: deps.logger } : {}) };
  const guards: Guards = {
    read: (handler) => withAdmin(deps.adminSecret, 'admin:read', handler),
    write: (action, describe, handler) =>
      withAdmin(deps.adminSecret, 'admin:write', async (context, actor) =>
        audited(trail, { actor, action, ...(await describe(context)) }, () => handler(context, actor)),
      ),
  };
  addUserRoutes(routes, deps.stores.users, guards);
  addPolicyRoutes(routes, deps.stores.policies, guards);
  addMcpServerRoutes(routes, deps.stores.mcpServers, guards);
  addStatusRoutes(routes, deps, guards);
  addTemplateRoutes(routes, deps.stores.promptTemplates, guards);
  return routes;
}
