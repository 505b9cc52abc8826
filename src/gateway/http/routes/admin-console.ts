/**
 * Admin endpoints the console needs beyond the CLI's (ADR 0047): conversations (list, one with its recent turns),
 * deciding a pending approval as a card click does, the approvals history, and approval grants (list, add, revoke). Admin tokens or a console
 * session only; changes are audited like every admin change.
 */
import { Hono, type Context } from 'hono';
import { z } from 'zod';
import type { ResolveOutcome } from '../../../agent/workstream-api.js';
import type { Logger } from '../../../shared/logger.js';
import type { Stores } from '../../../storage/index.js';
import { listConversations, showConversation } from '../../admin/admin-conversations.js';
import { addGrant, approvalsHistory, listGrants, revokeGrant } from '../../admin/admin-grants.js';
import { parseAdminInput } from '../../admin/admin-input.js';
import type { Gateway } from '../../gateway-types.js';
import { HttpError } from '../http-errors.js';
import { adminGuards, jsonObject, named, param, type Guards } from './admin.js';

export interface AdminConsoleRoutesDeps {
  adminSecret: string;
  stores: Pick<
    Stores,
    'workstreams' | 'users' | 'routes' | 'conversations' | 'turnJournal' | 'grants' | 'adminAudit' | 'approvals'
  >;
  /** The running gateway, undefined until the channels are up. */
  gateway: () => Gateway | undefined;
  logger?: Logger;
}

const decisionSchema = z.strictObject({
  decision: z.enum(['approve', 'reject'], { error: 'decision must be approve or reject' }),
  feedback: z.string().trim().max(1000, 'feedback is longer than 1000 characters').optional(),
});

/** The agent's outcome as an HTTP answer: only `decided` is a success. */
function answerOf(context: Context, outcome: ResolveOutcome): Response {
  switch (outcome.status) {
    case 'decided':
      return context.json({ status: 'decided' });
    case 'not-found':
      throw new HttpError(404, 'this request no longer exists');
    case 'forbidden':
      throw new HttpError(403, 'only the owner or an admin can decide this');
    case 'already-decided':
      return context.json({ status: 'already-decided', error: 'this request was already decided' }, 409);
    case 'cancelled':
      return context.json({ status: 'cancelled', error: 'this request is no longer active; nothing ran' }, 409);
  }
}

/** Who decides: the linked user whose username is the token's subject, else the admin subject itself. */
async function deciderOf(users: AdminConsoleRoutesDeps['stores']['users'], actor: string): Promise<string> {
  const subject = actor.replace(/^(api|console):/, '');
  return (await users.getUserByUsername(subject))?.userId ?? `admin:${subject}`;
}

const historyLimit = z.coerce
  .number({ error: 'limit must be a number' })
  .int()
  .min(1, 'limit must be 1-500')
  .max(500, 'limit must be 1-500')
  .default(50);

function addApprovalDecision(routes: Hono, deps: AdminConsoleRoutesDeps, { read, write }: Guards): void {
  routes.get(
    '/v1/api/admin/approvals/history',
    read(async (c) => {
      const limit = parseAdminInput(historyLimit, c.req.query('limit'));
      return c.json({ history: await approvalsHistory(deps.stores, { limit }) });
    }),
  );
  routes.post(
    '/v1/api/admin/approvals/:approvalId/decision',
    write('approval.decide', named('approvalId'), async (context, actor) => {
      const input = parseAdminInput(decisionSchema, await jsonObject(context));
      const gateway = deps.gateway();
      if (gateway === undefined) throw new HttpError(503, 'the gateway is still starting');
      const outcome = await gateway.decideApproval(param(context, 'approvalId'), {
        approved: input.decision === 'approve',
        feedback: input.feedback ?? null,
        decidedBy: await deciderOf(deps.stores.users, actor),
        isAdmin: true,
      });
      return answerOf(context, outcome);
    }),
  );
}

function addGrantRoutes(routes: Hono, stores: AdminConsoleRoutesDeps['stores'], { read, write }: Guards): void {
  routes.get(
    '/v1/api/admin/grants',
    read(async (c) => {
      const user = c.req.query('user');
      return c.json({
        grants: await listGrants(stores, { all: c.req.query('all') === '1', ...(user ? { user } : {}) }),
      });
    }),
  );
  routes.post(
    '/v1/api/admin/grants',
    write(
      'grant.add',
      () => ({ target: '' }),
      async (c, actor) => c.json({ grant: await addGrant(stores, await jsonObject(c), actor) }, 201),
    ),
  );
  routes.delete(
    '/v1/api/admin/grants/:grantId',
    write('grant.revoke', named('grantId'), async (c, actor) =>
      c.json({ grant: await revokeGrant(stores, param(c, 'grantId'), actor) }),
    ),
  );
}

export function createAdminConsoleRoutes(deps: AdminConsoleRoutesDeps): Hono {
  const routes = new Hono();
  const guards = adminGuards(deps.adminSecret, {
    store: deps.stores.adminAudit,
    ...(deps.logger ? { logger: deps.logger } : {}),
  });
  routes.get(
    '/v1/api/admin/conversations',
    guards.read(async (c) =>
      c.json({ conversations: await listConversations(deps.stores, { all: c.req.query('all') === '1' }) }),
    ),
  );
  routes.get(
    '/v1/api/admin/conversations/:wsId',
    guards.read(async (c) => c.json(await showConversation(deps.stores, param(c, 'wsId')))),
  );
  addApprovalDecision(routes, deps, guards);
  addGrantRoutes(routes, deps.stores, guards);
  return routes;
}
