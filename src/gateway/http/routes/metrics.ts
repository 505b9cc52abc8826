/** `GET /metrics`: Prometheus text exposition. */
import { Hono } from 'hono';
import type { Registry } from 'prom-client';

export function createMetricsRoutes(registry: Registry): Hono {
  const routes = new Hono();
  routes.get('/metrics', async (context) => {
    const body = await registry.metrics();
    return context.body(body, 200, { 'content-type': registry.contentType });
  });
  return routes;
}
