/**
 * `/mcp` and `/mcp refresh` in a conversation (Turnstone's in-chat MCP controls): the MCP servers with their state and
 * catalog sizes, or a refresh of every server's tools, resources and prompts. The thread's owner or an admin only; the
 * answer is private to them.
 */
import type { McpStatus } from '../agent/mcp/mcp-status.js';
import type { InstancesReport } from './cluster/mcp-fanout.js';

/** What the command needs of MCP: the manager itself, or the cluster-wide one that fans a refresh out. */
export interface GatewayMcp {
  status(): McpStatus;
  /** Re-reads every server's tools, resources and prompts; in a cluster on every live instance (which it reports). */
  refresh(): Promise<unknown>;
}

export const MCP_USAGE =
  'Usage: `mcp` shows the MCP servers; `mcp refresh` re-reads their tools, resources and prompts.';

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
  return [
    `MCP servers: ${status.servers} of ${status.configured} connected, ${count(status.tools, 'tool')}.`,
    ...lines,
  ].join('\n');
}

/** The answer to `/mcp [action]`. */
export async function runMcpCommand(mcp: GatewayMcp | undefined, action: string): Promise<string> {
  if (mcp === undefined) return 'MCP is not running on this gateway.';
  const verb = action.trim().toLowerCase();
  if (verb === '') return mcpStatusText(mcp.status());
  if (verb !== 'refresh') return MCP_USAGE;
  const instances = await mcp.refresh();
  return `Refreshed the MCP servers${isInstancesReport(instances) ? instancesText(instances) : ''}.\n${mcpStatusText(mcp.status())}`;
}

function isInstancesReport(value: unknown): value is InstancesReport {
  return (
    typeof value === 'object' &&
    value !== null &&
    Array.isArray((value as Partial<InstancesReport>).applied) &&
    Array.isArray((value as Partial<InstancesReport>).missing)
  );
}

/** " on 2 of 3 instances (not answered: b)": how far a refresh in a cluster got. */
function instancesText(report: InstancesReport): string {
  const total = report.applied.length + report.failed.length + report.missing.length;
  const notes = [
    ...(report.failed.length > 0 ? [`failed: ${report.failed.map((entry) => entry.instance).join(', ')}`] : []),
    ...(report.missing.length > 0 ? [`not answered: ${report.missing.join(', ')}`] : []),
  ];
  return ` on ${report.applied.length} of ${total} instance${total === 1 ? '' : 's'}${notes.length > 0 ? ` (${notes.join('; ')})` : ''}`;
}
