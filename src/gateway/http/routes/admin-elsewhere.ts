/**
 * What the main listener answers under `/v1/api/admin/*` and `/console`: 404 with where the admin API is (ADR 0035). The main
 * listener may face the network and the notify secret opens nothing here, so admin routes are never served on it.
 */
import { Hono } from 'hono';
import type { Config } from '../../../config/index.js';
import { ADMIN_OFF_HINT } from '../../admin/admin-listen.js';

export function createAdminElsewhereRoutes(config: Pick<Config, 'auth' | 'admin'>): Hono {
  const routes = new Hono();
  const message = config.auth.admin_secret
    ? `the admin API is not served on this address; it listens on admin.listen (${config.admin.listen})`
    : ADMIN_OFF_HINT;
  routes.all('/v1/api/admin/*', (context) => context.json({ error: message }, 404));
  routes.all('/v1/api/admin', (context) => context.json({ error: message }, 404));
  // The operator console lives beside the admin API, never here (ADR 0047).
  routes.all('/console', (context) =>
    context.json({ error: `the console is served on admin.listen when console.enabled; ${message}` }, 404),
  );
  routes.all('/console/*', (context) =>
    context.json({ error: 'the console is served on admin.listen when console.enabled' }, 404),
  );
  return routes;
}
