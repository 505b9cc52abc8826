/** Builds the HTTP application: one router per resource, a body-size limit, metrics timing, one error mapper. */
import { Hono } from 'hono';
import type { Logger } from '../../shared/logger.js';
import { DEFAULT_MAX_BODY_BYTES, limitBody } from './body-limit.js';
import { createErrorHandler } from './http-errors.js';
import type { HttpMetrics } from './metrics.js';
import { createHealthRoutes, type HealthSources } from './routes/health.js';
import { createMetricsRoutes } from './routes/metrics.js';

export interface HttpAppDeps {
  logger: Logger;
  metrics: HttpMetrics;
  health: HealthSources;
  /** Extra routers (notify, admin) mounted at the root. */
  routers?: readonly Hono[];
  /** Largest accepted request body in bytes (default 1 MiB). */
  maxBodyBytes?: number;
}

export function createHttpApp(deps: HttpAppDeps): Hono {
  const app = new Hono();
  app.use('*', async (context, next) => {
    const started = performance.now();
    await next();
    const route = context.req.routePath || 'unmatched';
    deps.metrics.requestDuration.observe(
      { method: context.req.method, route, status: String(context.res.status) },
      (performance.now() - started) / 1000,
    );
  });
  app.use('*', limitBody(deps.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES));
  app.route('/', createHealthRoutes(deps.health));
  app.route('/', createMetricsRoutes(deps.metrics.registry));
  for (const router of deps.routers ?? []) app.route('/', router);
  app.notFound((context) => context.json({ error: 'not found' }, 404));
  app.onError(createErrorHandler(deps.logger));
  return app;
}
