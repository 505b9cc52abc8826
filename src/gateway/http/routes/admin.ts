/**
 * Admin endpoints on the database, JWT with the `service` scope: users, tokens, tool policies, database-defined MCP
 * servers, pending approvals and the cluster's status (instances, shards, leases). The same operations (and the same
 * validation) as the admin CLI commands.
 */
import { Hono, type Context } from 'hono';
import { listPendingApprovals } from '../../admin/admin-approvals.js';
import { readClusterStatus } from '../../admin/admin-status.js';
import { addMcpServer, listMcpServers, removeMcpServer } from '../../admin/admin-mcp-servers.js';
import { addPolicy, listPolicies, removePolicy } from '../../admin/admin-policies.js';
import { listTokens, listUsers, revokeToken } from '../../admin/admin-users.js';
import { isPlainObject, safeParseJson } from '../../../shared/json.js';
import type { Stores } from '../../../storage/index.js';
import { verifyBearer, type JwtSettings } from '../auth.js';
import { HttpError } from '../http-errors.js';

export interface AdminRoutesDeps {
  jwt: JwtSettings;
  stores: Pick<Stores, 'users' | 'policies' | 'mcpServers' | 'approvals' | 'clusterStatus'>;
  /** Heartbeat age after which `status` calls an instance stale (`instanceStaleAfterSeconds(config)`). */
  staleAfterSeconds: number;
}

async function jsonObject(context: Context): Promise<Record<string, unknown>> {
  const parsed = safeParseJson(await context.req.text());
  if (!parsed.ok || !isPlainObject(parsed.value)) throw new HttpError(400, 'body must be a JSON object');
  return parsed.value;
}

type AdminHandler = (context: Context, actor: string) => Promise<Response>;

/** Wraps a handler: the bearer token must grant `service`; the handler gets who called (for `created_by`). */
function withService(jwt: JwtSettings, handler: AdminHandler): (context: Context) => Promise<Response> {
  return async (context) => {
    const principal = await verifyBearer(context.req.header('authorization'), jwt, 'service');
    return handler(context, `api:${principal.subject || 'service'}`);
  };
}

const param = (context: Context, name: string): string => context.req.param(name) ?? '';

export function createAdminRoutes(deps: AdminRoutesDeps): Hono {
  const routes = new Hono();
  const { users, policies, mcpServers, approvals } = deps.stores;
  const admin = (handler: AdminHandler): ((context: Context) => Promise<Response>) => withService(deps.jwt, handler);
  routes.get('/v1/api/admin/users', admin(async (context) => context.json({ users: await listUsers(users) })));
  routes.get(
    '/v1/api/admin/tokens',
    admin(async (context) => {
      const username = context.req.query('username');
      return context.json({ tokens: await listTokens(users, username === '' ? undefined : username) });
    }),
  );
  routes.delete('/v1/api/admin/tokens/:tokenId', admin(async (context) => context.json(await revokeToken(users, param(context, 'tokenId')))));
  routes.get('/v1/api/admin/policies', admin(async (context) => context.json({ policies: await listPolicies(policies) })));
  routes.post(
    '/v1/api/admin/policies',
    admin(async (context, actor) => context.json({ policy: await addPolicy(policies, await jsonObject(context), actor) }, 201)),
  );
  routes.delete('/v1/api/admin/policies/:key', admin(async (context) => context.json({ policy: await removePolicy(policies, param(context, 'key')) })));
  routes.get('/v1/api/admin/mcp/servers', admin(async (context) => context.json({ servers: await listMcpServers(mcpServers) })));
  routes.post(
    '/v1/api/admin/mcp/servers',
    admin(async (context, actor) => context.json({ server: await addMcpServer(mcpServers, await jsonObject(context), actor) }, 201)),
  );
  routes.delete(
    '/v1/api/admin/mcp/servers/:name',
    admin(async (context) => context.json({ server: await removeMcpServer(mcpServers, param(context, 'name')) })),
  );
  routes.get('/v1/api/admin/status', admin(async (context) => context.json(await readClusterStatus(deps.stores.clusterStatus, deps.staleAfterSeconds))));
  routes.get('/v1/api/admin/approvals', admin(async (context) => context.json({ approvals: await listPendingApprovals({ approvals, users }) })));
  return routes;
}
