/**
 * `/mcp` and `/mcp refresh` in a conversation (Turnstone's in-chat MCP controls): the MCP servers with their state and
 * catalog sizes, or a refresh of every server's tools, resources and prompts. The thread's owner or an admin only; the
 * answer is private to them.
 */
import type { McpStatus } from '../agent/mcp/mcp-status.js';

/** What the command needs of MCP: the manager itself, or the cluster-wide one that fans a refresh out. */
export interface GatewayMcp {
  status(): McpStatus;
  /** Re-reads every server's tools, resources and prompts. */
  refresh(): Promise<unknown>;
}

export const MCP_USAGE = 'Usage: `mcp` shows the MCP servers; `mcp refresh` re-reads their tools, resources and prompts.';

function count(n: number, one: string): string {
  return `${n} ${one}${n === 1 ? '' : 's'}`;
}

/** One line per server: name, state, catalog sizes, and its last error (one line, already capped at 256 chars). */
export function mcpStatusText(status: McpStatus): string {
  if (status.perServer.length === 0) return 'No MCP servers are configured.';
  const lines = status.perServer.map((server) => {
    const state = server.connected ? 'connected' : server.circuitOpen ? 'paused after failures' : 'not connected';
    const sizes = `${count(server.tools, 'tool')}, ${count(server.resources, 'resource')}, ${count(server.prompts, 'prompt')}`;
    return `• \`${server.name}\` (${server.transport}): ${state}; ${sizes}${server.error === '' ? '' : ` — ${server.error}`}`;
  });
  return [`MCP servers: ${status.servers} of ${status.configured} connected, ${count(status.tools, 'tool')}.`, ...lines].join('\n');
}

/** The answer to `/mcp [action]`. */
export async function runMcpCommand(mcp: GatewayMcp | undefined, action: string): Promise<string> {
  if (mcp === undefined) return 'MCP is not running on this gateway.';
  const verb = action.trim().toLowerCase();
  if (verb === '') return mcpStatusText(mcp.status());
  if (verb !== 'refresh') return MCP_USAGE;
  await mcp.refresh();
  return `Refreshed the MCP servers.\n${mcpStatusText(mcp.status())}`;
}
