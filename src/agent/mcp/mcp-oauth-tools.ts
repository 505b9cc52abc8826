/**
 * The model's view of OAuth servers whose catalog is still unknown: one `mcp__<server>__authorize` tool each (a call
 * sends the caller a private link and waits), and a line in the system message saying so.
 */
import type { ToolContext, ToolDefinition, ToolPreparation, ToolResult } from '../tools/tool.js';
import { mcpToolName } from './mcp-catalog.js';
import type { ManagerContext } from './mcp-manager-context.js';
import { callAsUser, revokeAuthorizations } from './mcp-oauth-calls.js';

const AUTHORIZE = 'authorize';
const SIGN_OUT = 'sign_out';

function oauthServers(context: ManagerContext): string[] {
  return context.oauth
    ? [...context.servers.values()].filter((state) => state.spec.oauth).map((state) => state.spec.name)
    : [];
}

function waitingServers(context: ManagerContext): string[] {
  return [...context.servers.values()]
    .filter((state) => state.spec.oauth && state.needsAuthorization)
    .map((state) => state.spec.name);
}

export function authorizationToolDefinitions(context: ManagerContext): ToolDefinition[] {
  const signOut = oauthServers(context).map((server) => ({
    name: mcpToolName(server, SIGN_OUT),
    description: `Forget the user's own authorization of the MCP server "${server}" (their stored token); their next call to it asks them to sign in again. Only when the user asks for it.`,
    parameters: { type: 'object', properties: {} },
    agent: false,
    taskAgent: false,
    autoApprove: false,
  }));
  return [
    ...signOut,
    ...waitingServers(context).map((server) => ({
      name: mcpToolName(server, AUTHORIZE),
      description: `The MCP server "${server}" needs each user's authorization before its tools are known. Calling this sends the user a private sign-in link and waits until they finish; then the server's tools appear.`,
      parameters: { type: 'object', properties: {} },
      agent: false,
      taskAgent: true,
      autoApprove: false,
    })),
  ];
}

/** The server a `sign_out` tool name stands for. */
export function signOutToolServer(context: ManagerContext, name: string): string | undefined {
  return oauthServers(context).find((server) => mcpToolName(server, SIGN_OUT) === name);
}

export function prepareSignOutTool(server: string): ToolPreparation {
  return {
    header: `⚙ mcp:${server} sign out`,
    preview: '    (forgets your own token for this server)',
    needsApproval: false,
    approvalLabel: mcpToolName(server, SIGN_OUT),
  };
}

/** Revokes the caller's own tokens for `server` (never anyone else's). */
export async function runSignOutTool(
  context: ManagerContext,
  server: string,
  toolContext: ToolContext,
): Promise<ToolResult> {
  const caller = await context.oauth?.callerOf(toolContext.workstreamId);
  if (!caller) return { output: 'There is no user to sign out in this conversation.', isError: true };
  const count = await revokeAuthorizations(context, server, caller.userId);
  return {
    output:
      count > 0
        ? `Signed out of ${server}; the next call will ask for a new authorization.`
        : `You had not authorized ${server}.`,
    isError: false,
  };
}

/** The server an `authorize` tool name stands for, when that server is waiting for authorization. */
export function authorizationToolServer(context: ManagerContext, name: string): string | undefined {
  return waitingServers(context).find((server) => mcpToolName(server, AUTHORIZE) === name);
}

export function prepareAuthorizationTool(server: string): ToolPreparation {
  return {
    header: `⚙ mcp:${server} authorization`,
    preview: '    (sends you a private sign-in link)',
    needsApproval: false,
    approvalLabel: mcpToolName(server, AUTHORIZE),
    untimed: true,
  };
}

export async function runAuthorizationTool(
  context: ManagerContext,
  server: string,
  toolContext: ToolContext,
): Promise<ToolResult> {
  await callAsUser(context, server, toolContext.workstreamId, toolContext.signal, () => Promise.resolve());
  const tools = context.catalog.tools.filter((tool) => tool.server === server).map((tool) => tool.name);
  return { output: `Authorized. ${server} offers: ${tools.join(', ') || '(no tools)'}`, isError: false };
}

/** System-message lines for servers waiting for a first authorization ('' when none). */
export function authorizationPromptSection(context: ManagerContext): string {
  const servers = waitingServers(context);
  if (servers.length === 0) return '';
  const lines = servers.map(
    (server) => `- ${server}: call ${mcpToolName(server, AUTHORIZE)} (the user gets a private sign-in link)`,
  );
  return ["MCP servers that need the user's authorization before their tools are known:", ...lines].join('\n');
}
