/**
 * Admin endpoints for MCP servers: status (`admin:read`); refresh (one or all), reconnect and reload (`admin:write`,
 * audited). Admin tokens only (ADR 0035).
 */
import { Hono } from 'hono';
import { audited, type AuditTrail } from '../../admin/admin-audit.js';
import { isPlainObject, safeParseJson } from '../../../shared/json.js';
import type { Logger } from '../../../shared/logger.js';
import type { AdminAuditStore } from '../../../storage/index.js';
import type { InstancesReport, McpControl } from '../../cluster/mcp-fanout.js';
import { HttpError } from '../http-errors.js';
import { withAdmin } from './admin.js';

/** What the admin routes need from the MCP manager. */
export interface McpAdmin {
  status(): unknown;
  /** Refreshes one server's catalogs, or all when `server` is undefined; false when the server is unknown. */
  refresh(server?: string): Promise<boolean>;
  /** Drops and re-opens one server's connection; false when the server is unknown. */
  reconnect(server: string): Promise<boolean>;
  /**
   * Re-reads every server definition (config, `mcp.config_file`, `mcp_servers`) and reconciles the running
   * connections; undefined while MCP has not started yet.
   */
  reload(): Promise<McpReloadAnswer | undefined>;
  /**
   * In a cluster: applies a control this instance applied already on every other live instance and reports which
   * did (ADR 0050); absent or undefined on a single instance.
   */
  fanOut?(control: McpControl): Promise<InstancesReport | undefined>;
  /** Authorizes an OAuth server ahead of time as a user: the sign-in link, or `authorized` when their token works. */
  login?(server: string, username: string): Promise<{ authorized: true } | { url: string }>;
}

/** What a reload did, by server name; `rejected` lists definitions that could not be used. */
export interface McpReloadAnswer {
  added: string[];
  removed: string[];
  updated: string[];
  failed: string[];
  rejected: Array<{ name: string; reason: string }>;
}

async function serverName(text: string, required: boolean): Promise<string | undefined> {
  if (!text.trim()) {
    if (required) throw new HttpError(400, 'server is required');
    return undefined;
  }
  const parsed = safeParseJson(text);
  if (!parsed.ok || !isPlainObject(parsed.value)) throw new HttpError(400, 'invalid JSON');
  const server = parsed.value['server'];
  if (server === undefined && !required) return undefined;
  if (typeof server !== 'string' || !server) throw new HttpError(400, 'server must be a non-empty string');
  return server;
}

/** `{ instances }` when the control went to the other live instances of a cluster; nothing on a single instance. */
async function fanOut(mcp: McpAdmin, control: McpControl): Promise<{ instances?: InstancesReport }> {
  const instances = await mcp.fanOut?.(control);
  return instances === undefined ? {} : { instances };
}

export interface AdminMcpRoutesDeps {
  adminSecret: string;
  mcp: McpAdmin;
  audit: Pick<AdminAuditStore, 'record'>;
  logger?: Logger;
}

export function createAdminMcpRoutes(deps: AdminMcpRoutesDeps): Hono {
  const routes = new Hono();
  const trail: AuditTrail = { store: deps.audit, ...(deps.logger ? { logger: deps.logger } : {}) };
  routes.get(
    '/v1/api/admin/mcp',
    withAdmin(deps.adminSecret, 'admin:read', async (context) => context.json(deps.mcp.status() as object)),
  );
  routes.post(
    '/v1/api/admin/mcp/refresh',
    withAdmin(deps.adminSecret, 'admin:write', async (context, actor) => {
      const server = await serverName(await context.req.text(), false);
      return audited(trail, { actor, action: 'mcp.refresh', target: server ?? 'all' }, async () => {
        if (!(await deps.mcp.refresh(server))) throw new HttpError(404, `unknown MCP server "${server ?? ''}"`);
        const instances = await fanOut(
          deps.mcp,
          server === undefined ? { action: 'refresh' } : { action: 'refresh', server },
        );
        return context.json({ status: 'ok', refreshed: server ?? 'all', ...instances });
      });
    }),
  );
  routes.post(
    '/v1/api/admin/mcp/reconnect',
    withAdmin(deps.adminSecret, 'admin:write', async (context, actor) => {
      const server = (await serverName(await context.req.text(), true)) as string;
      return audited(trail, { actor, action: 'mcp.reconnect', target: server }, async () => {
        if (!(await deps.mcp.reconnect(server))) throw new HttpError(404, `unknown MCP server "${server}"`);
        return context.json({
          status: 'ok',
          reconnected: server,
          ...(await fanOut(deps.mcp, { action: 'reconnect', server })),
        });
      });
    }),
  );
  routes.post(
    '/v1/api/admin/mcp/reload',
    withAdmin(deps.adminSecret, 'admin:write', async (context, actor) =>
      audited(trail, { actor, action: 'mcp.reload', target: 'all' }, async () => {
        const answer = await deps.mcp.reload();
        if (!answer) throw new HttpError(503, 'MCP has not started yet; try again in a moment');
        return context.json({ ...answer, ...(await fanOut(deps.mcp, { action: 'reload' })) });
      }),
    ),
  );
  addLoginRoute(routes, deps, trail);
  return routes;
}

/** `POST /v1/api/admin/mcp/auth/login`: an OAuth sign-in link for a user on a server. */
function addLoginRoute(routes: Hono, deps: AdminMcpRoutesDeps, trail: AuditTrail): void {
  routes.post(
    '/v1/api/admin/mcp/auth/login',
    withAdmin(deps.adminSecret, 'admin:write', async (context, actor) => {
      const body = safeParseJson(await context.req.text());
      const fields = body.ok && isPlainObject(body.value) ? body.value : {};
      const server = fields['server'];
      const user = fields['user'];
      if (typeof server !== 'string' || !server || typeof user !== 'string' || !user)
        throw new HttpError(400, 'server and user must be non-empty strings');
      const login = deps.mcp.login;
      if (!login) throw new HttpError(503, 'MCP OAuth is not configured (gateway.public_url, mcp.token_key)');
      return audited(trail, { actor, action: 'mcp.auth.login', target: server }, async () =>
        context.json(await login(server, user)),
      );
    }),
  );
}
