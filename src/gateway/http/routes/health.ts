/** `GET /health`: liveness plus adapter and MCP summaries (docs/architecture.md §7). */
import { Hono } from 'hono';

export interface McpHealth {
  servers: number;
  tools: number;
  resources: number;
  prompts: number;
}

export interface HealthSources {
  adapters: () => Record<string, unknown>;
  mcp: () => McpHealth;
  /** The process sandbox the tools run in (`off` until detected, or when there is none). */
  sandbox?: () => 'bwrap' | 'unavailable' | 'off';
}

export const EMPTY_MCP_HEALTH: McpHealth = { servers: 0, tools: 0, resources: 0, prompts: 0 };

export function createHealthRoutes(sources: HealthSources): Hono {
  const routes = new Hono();
  routes.get('/health', (context) =>
    context.json({
      status: 'ok',
      service: 'channel',
      adapters: sources.adapters(),
      mcp: sources.mcp(),
      sandbox: sources.sandbox?.() ?? 'off',
    }),
  );
  return routes;
}
