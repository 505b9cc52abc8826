/**
 * The model's view of OAuth servers whose catalog is still unknown: one `mcp__<server>__authorize` tool each (a call
 * sends the caller a private link and waits), and a line in the system message saying so.
 */
import type { ToolContext, ToolDefinition, ToolPreparation, ToolResult } from '../tools/tool.js';
import { mcpToolName } from './mcp-catalog.js';
import type { ManagerContext } from './mcp-manager-context.js';
import { callAsUser } from './mcp-oauth-calls.js';

const AUTHORIZE = 'authorize';

function waitingServers(context: ManagerContext): string[] {
  return [...context.servers.values()].filter((state) => state.spec.oauth && state.needsAuthorization).map((state) => state.spec.name);
}

export function authorizationToolDefinitions(context: ManagerContext): ToolDefinition[] {
  return waitingServers(context).map((server) => ({
    name: mcpToolName(server, AUTHORIZE),
    description: `The MCP server "${server}" needs each user's authorization before its tools are known. Calling this sends the user a private sign-in link and waits until they finish; then the server's tools appear.`,
    parameters: { type: 'object', properties: {} },
    agent: false,
    taskAgent: true,
    autoApprove: false,
  }));
}

/** The server an `authorize` tool name stands for, when that server is waiting for authorization. */
export function authorizationToolServer(context: ManagerContext, name: string): string | undefined {
  return waitingServers(context).find((server) => mcpToolName(server, AUTHORIZE) === name);
}

export function prepareAuthorizationTool(server: string): ToolPreparation {
  return { header: `⚙ mcp:${server} authorization`, preview: '    (sends you a private sign-in link)', needsApproval: false, approvalLabel: mcpToolName(server, AUTHORIZE), untimed: true };
}

export async function runAuthorizationTool(context: ManagerContext, server: string, toolContext: ToolContext): Promise<ToolResult> {
  await callAsUser(context, server, toolContext.workstreamId, toolContext.signal, () => Promise.resolve());
  const tools = context.catalog.tools.filter((tool) => tool.server === server).map((tool) => tool.name);
  return { output: `Authorized. ${server} offers: ${tools.join(', ') || '(no tools)'}`, isError: false };
}

/** System-message lines for servers waiting for a first authorization ('' when none). */
export function authorizationPromptSection(context: ManagerContext): string {
  const servers = waitingServers(context);
  if (servers.length === 0) return '';
  const lines = servers.map((server) => `- ${server}: call ${mcpToolName(server, AUTHORIZE)} (the user gets a private sign-in link)`);
  return ['MCP servers that need the user\'s authorization before their tools are known:', ...lines].join('\n');
}
