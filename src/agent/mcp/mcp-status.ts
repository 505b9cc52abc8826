/** Status projection for /health, metrics and operators (no command, URL or headers). */
import type { ManagerContext, ServerState } from './mcp-manager-context.js';
import type { McpServerSource, McpTransportKind } from './mcp-server-spec.js';

export interface McpServerStatus {
  name: string;
  source: McpServerSource;
  transport: McpTransportKind;
  connected: boolean;
  tools: number;
  resources: number;
  prompts: number;
  /** Last connect/refresh error, one line, ≤256 chars; '' when healthy. */
  error: string;
  circuitOpen: boolean;
  consecutiveFailures: number;
  /** stdio child process id while connected. */
  pid?: number;
}

export interface McpStatus {
  /** Servers with a live session. */
  servers: number;
  configured: number;
  tools: number;
  /** Concrete resources plus templates. */
  resources: number;
  prompts: number;
  errors: number;
  perServer: McpServerStatus[];
}

export function serverStatus(context: ManagerContext, state: ServerState): McpServerStatus {
  const catalog = state.catalog;
  const name = state.spec.name;
  return {
    name,
    source: state.spec.source,
    transport: state.spec.transport,
    connected: state.connection !== undefined,
    tools: catalog.tools.length,
    resources: catalog.resources.length + catalog.templates.length,
    prompts: catalog.prompts.length,
    error: state.lastError,
    circuitOpen: context.breaker.isOpen(name),
    consecutiveFailures: context.breaker.failures(name),
    ...(state.connection?.pid !== undefined ? { pid: state.connection.pid } : {}),
  };
}

export function unknownServerStatus(name: string, error: string): McpServerStatus {
  return {
    name,
    source: 'toml',
    transport: 'stdio',
    connected: false,
    tools: 0,
    resources: 0,
    prompts: 0,
    error,
    circuitOpen: false,
    consecutiveFailures: 0,
  };
}

export function buildMcpStatus(context: ManagerContext): McpStatus {
  const perServer = [...context.servers.values()].map((state) => serverStatus(context, state));
  return {
    servers: perServer.filter((server) => server.connected).length,
    configured: perServer.length,
    tools: context.catalog.tools.length,
    resources: context.catalog.resources.length,
    prompts: context.catalog.prompts.length,
    errors: perServer.filter((server) => server.error !== '').length,
    perServer,
  };
}
