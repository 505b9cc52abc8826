/** The operator console's parts on the admin listener (ADR 0047): its routes when `console.enabled`, the admin routes it uses. */
import type { Hono } from 'hono';
import type { Config } from './config/index.js';
import { listPendingApprovals } from './gateway/admin/admin-approvals.js';
import { conversationLookups, listConversations } from './gateway/admin/admin-conversations.js';
import { ConsoleFeed } from './gateway/console/console-feed.js';
import { consoleMcpView } from './gateway/console/console-views.js';
import { createConsoleRoutes } from './gateway/console/console-routes.js';
import type { HealthSources } from './gateway/http/routes/health.js';
import { createAdminConsoleRoutes } from './gateway/http/routes/admin-console.js';
import type { Logger } from './shared/logger.js';
import type { Stores } from './storage/stores.js';
import type { LiveParts } from './main.js';

export interface ConsoleParts {
  /** Mounted first on the admin listener: the console's middleware must see the admin routes' requests. */
  routers: Hono[];
  /** Ends the open event streams (before the listener closes). */
  stop(): void;
}

export function createConsoleParts(
  config: Config,
  logger: Logger,
  stores: Stores,
  live: LiveParts,
  health: HealthSources,
): ConsoleParts {
  const adminSecret = config.auth.admin_secret;
  const adminRoutes = createAdminConsoleRoutes({ adminSecret, stores, logger, gateway: () => live.gateway });
  if (!config.console.enabled) return { routers: [adminRoutes], stop: () => undefined };
  const controller = new AbortController();
  const lookups = conversationLookups();
  const feed = new ConsoleFeed({
    logger,
    signal: controller.signal,
    sources: {
      conversations: () => listConversations(stores, { lookups }),
      approvals: () => listPendingApprovals(stores),
      mcp: async () => consoleMcpView(live.mcp?.status()),
      health: async () => ({ adapters: health.adapters(), sandbox: health.sandbox?.() ?? 'off' }),
    },
  });
  const routes = createConsoleRoutes({
    adminSecret,
    sessionHours: config.console.session_hours,
    feed,
    signal: controller.signal,
  });
  logger.info({ path: '/console' }, 'operator console enabled on admin.listen');
  return { routers: [routes, adminRoutes], stop: () => controller.abort() };
}
