/** What the console shows of MCP servers: their status with error texts masked (an error may quote a URL or a header). */
import type { McpStatus } from '../../agent/mcp/mcp-status.js';
import { maskSecrets } from '../../shared/secret-masking.js';

export function consoleMcpView(status: McpStatus | undefined): McpStatus | { perServer: [] } {
  if (status === undefined) return { perServer: [] };
  return {
    ...status,
    perServer: status.perServer.map((server) =>
      server.error ? { ...server, error: maskSecrets(server.error) } : server,
    ),
  };
}
