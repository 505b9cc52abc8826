/** The model-facing side: MCP tools, `read_resource` and `use_prompt` as ToolDefinitions, their preparation and execution. */
import { fenceUntrusted } from '../../shared/untrusted-fence.js';
import { isAbortError } from '../../shared/abort.js';
import type { ToolContext, ToolDefinition, ToolPreparation, ToolResult } from '../tools/tool.js';
import { resolveResource, type McpCatalog } from './mcp-catalog.js';
import { McpCallError } from './mcp-call-error.js';
import type { McpConnection } from './mcp-connection.js';
import { dispatch } from './mcp-dispatch.js';
import type { ManagerContext } from './mcp-manager-context.js';
import { callAsUser } from './mcp-oauth-calls.js';
import { formatPromptMessages, formatResourceContents, formatToolResult } from './mcp-result-format.js';
import { normalizeResourceUri } from './normalize-resource-uri.js';

export const READ_RESOURCE = 'read_resource';
export const USE_PROMPT = 'use_prompt';

export interface McpBuiltinSchemas {
  readResource: ToolDefinition;
  usePrompt: ToolDefinition;
}

/** Fallback definitions; the lead may pass the ones loaded from tools/read_resource.json and tools/use_prompt.json. */
export const DEFAULT_BUILTIN_SCHEMAS: McpBuiltinSchemas = {
  readResource: {
    name: READ_RESOURCE,
    description:
      'Read a resource offered by a connected MCP server. Use a URI from the resource catalog, or build one from a listed resource template.',
    parameters: {
      type: 'object',
      properties: { uri: { type: 'string', description: 'The resource URI.' } },
      required: ['uri'],
    },
    agent: true,
    taskAgent: true,
    autoApprove: false,
    primaryKey: 'uri',
  },
  usePrompt: {
    name: USE_PROMPT,
    description:
      'Fetch a prompt from a connected MCP server by its full name (mcp__<server>__<prompt>) and read its messages.',
    parameters: {
      type: 'object',
      properties: {
        name: { type: 'string', description: 'Prompt name as listed in the prompt catalog.' },
        arguments: { type: 'object', additionalProperties: { type: 'string' }, description: 'Prompt arguments.' },
      },
      required: ['name'],
    },
    agent: true,
    taskAgent: true,
    autoApprove: false,
    primaryKey: 'name',
  },
};

/** MCP tools first (catalog order), then the two helpers when there is something for them to reach. */
export function listMcpToolDefinitions(catalog: McpCatalog, schemas: McpBuiltinSchemas): ToolDefinition[] {
  const tools: ToolDefinition[] = catalog.tools.map((tool) => ({
    name: tool.name,
    description: tool.function.description,
    parameters: tool.function.parameters,
    // Read-only sub-agents only get tools the server marks read-only.
    agent: tool.annotations['readOnlyHint'] === true,
    taskAgent: true,
    autoApprove: false,
  }));
  if (catalog.resources.length > 0) tools.push({ ...schemas.readResource });
  if (catalog.prompts.length > 0) tools.push({ ...schemas.usePrompt });
  return tools;
}

export function catalogHasTool(catalog: McpCatalog, name: string): boolean {
  if (name === READ_RESOURCE) return catalog.resources.length > 0;
  if (name === USE_PROMPT) return catalog.prompts.length > 0;
  return catalog.toolMap.has(name);
}

function errorPreparation(name: string, message: string): ToolPreparation {
  return { header: `✗ ${name}`, preview: '', needsApproval: false, approvalLabel: name, error: message };
}

function argumentPreview(args: Record<string, unknown>): string {
  const lines = Object.entries(args).map(([key, value]) => {
    const text = typeof value === 'string' ? value : (JSON.stringify(value) ?? String(value));
    return `    ${key}: ${text.length > 200 ? `${text.slice(0, 200)}...` : text}`;
  });
  return lines.length === 0 ? '    (no arguments)' : lines.join('\n');
}

/** Approval is always needed; auto-approve rules and policies match the returned label. */
export function prepareMcpCall(catalog: McpCatalog, name: string, args: Record<string, unknown>): ToolPreparation {
  if (name === READ_RESOURCE) {
    const uri = args['uri'];
    if (typeof uri !== 'string' || uri === '') return errorPreparation(name, 'read_resource needs a "uri" string');
    return {
      header: `⚙ read_resource: ${uri.slice(0, 200)}`,
      preview: `    uri: ${uri.slice(0, 200)}`,
      needsApproval: true,
      approvalLabel: `mcp_resource__${normalizeResourceUri(uri)}`,
    };
  }
  if (name === USE_PROMPT) {
    const promptName = args['name'];
    if (typeof promptName !== 'string' || promptName === '')
      return errorPreparation(name, 'use_prompt needs a "name" string');
    if (!catalog.promptMap.has(promptName))
      return errorPreparation(name, `Unknown MCP prompt: ${promptName.slice(0, 200)}`);
    const promptArgs = args['arguments'];
    if (
      promptArgs !== undefined &&
      (typeof promptArgs !== 'object' || promptArgs === null || Array.isArray(promptArgs))
    ) {
      return errorPreparation(name, 'arguments must be a JSON object with string values');
    }
    return {
      header: `⚙ use_prompt: ${promptName}`,
      preview: argumentPreview((promptArgs ?? {}) as Record<string, unknown>),
      needsApproval: true,
      approvalLabel: promptName,
    };
  }
  const tool = catalog.toolMap.get(name);
  if (!tool) {
    const known = [...catalog.toolMap.keys()].sort().join(', ') || '(none)';
    return errorPreparation(name, `Unknown MCP tool: ${name.slice(0, 200)}. Use one of these names exactly: ${known}`);
  }
  return {
    header: `⚙ mcp:${tool.server}/${tool.originalName}`,
    preview: argumentPreview(args),
    needsApproval: true,
    approvalLabel: name,
  };
}

/** Runs a prepared call; failures become `isError` results the model can read. Aborts propagate. */
export async function executeMcpCall(
  context: ManagerContext,
  name: string,
  args: Record<string, unknown>,
  toolContext: ToolContext,
  special?: () => Promise<ToolResult>,
): Promise<ToolResult> {
  try {
    if (special) return await special();
    if (name === READ_RESOURCE) return await readResource(context, String(args['uri'] ?? ''), toolContext);
    if (name === USE_PROMPT)
      return await usePrompt(context, String(args['name'] ?? ''), args['arguments'], toolContext);
    return await callMcpTool(context, name, args, toolContext);
  } catch (error) {
    if (isAbortError(error) && toolContext.signal.aborted) throw error;
    return { output: failureText(name, error, toolContext), isError: true };
  }
}

const FAILURE_TEXT = {
  [READ_RESOURCE]: {
    timeout: 'MCP resource read timed out after',
    generic: 'MCP resource error: failed to read resource',
    prefix: 'MCP resource error: ',
  },
  [USE_PROMPT]: {
    timeout: 'MCP prompt timed out after',
    generic: 'MCP prompt error: failed to invoke prompt',
    prefix: 'MCP prompt error: ',
  },
} as const;

/** Tool errors carry the message; resource/prompt errors only carry our own safe messages (server text is logged). */
function failureText(name: string, error: unknown, toolContext: ToolContext): string {
  const seconds = Math.round((toolContext.timeoutMs > 0 ? toolContext.timeoutMs : UNTIMED_REQUEST_MS) / 1000);
  const isTimeout = error instanceof McpCallError && error.kind === 'timeout';
  const message = error instanceof Error ? error.message : String(error);
  const texts = name === READ_RESOURCE || name === USE_PROMPT ? FAILURE_TEXT[name] : undefined;
  if (!texts) return isTimeout ? `MCP tool timed out after ${seconds}s` : `MCP tool error: ${message}`;
  if (isTimeout) return `${texts.timeout} ${seconds}s`;
  toolContext.logger.warn({ tool: name, err: message }, 'MCP resource/prompt call failed');
  const isOwnMessage = error instanceof McpCallError && error.kind !== 'other' && error.kind !== 'protocol';
  return isOwnMessage ? `${texts.prefix}${message}` : texts.generic;
}

/**
 * Each request's own time-out. An untimed call (an OAuth server's: its wait for a sign-in is not bounded by the turn's
 * per-call time-out, `timeoutMs` 0) still bounds its requests, by the default per-call time-out.
 */
const UNTIMED_REQUEST_MS = 120_000;

function timeoutFor(context: ManagerContext, server: string, toolContext: ToolContext): number {
  return (
    context.servers.get(server)?.spec.timeoutMs ??
    (toolContext.timeoutMs > 0 ? toolContext.timeoutMs : UNTIMED_REQUEST_MS)
  );
}

/** OAuth servers: the caller's own session and token; others: the shared session through the breaker. */
function route<T>(
  context: ManagerContext,
  server: string,
  toolContext: ToolContext,
  run: (connection: McpConnection) => Promise<T>,
): Promise<T> {
  if (context.servers.get(server)?.spec.oauth)
    return callAsUser(context, server, toolContext.workstreamId, toolContext.signal, run);
  return dispatch(context, server, toolContext.signal, run);
}

async function withInFlight<T>(
  context: ManagerContext,
  server: string,
  workstreamId: string,
  work: () => Promise<T>,
): Promise<T> {
  const inFlight = context.servers.get(server)?.inFlight;
  inFlight?.set(workstreamId, (inFlight.get(workstreamId) ?? 0) + 1);
  try {
    return await work();
  } finally {
    const count = (inFlight?.get(workstreamId) ?? 1) - 1;
    if (count <= 0) inFlight?.delete(workstreamId);
    else inFlight?.set(workstreamId, count);
  }
}

async function callMcpTool(
  context: ManagerContext,
  name: string,
  args: Record<string, unknown>,
  toolContext: ToolContext,
): Promise<ToolResult> {
  const tool = context.catalog.toolMap.get(name);
  if (!tool) throw new McpCallError('unknown-target', `Unknown MCP tool: ${name.slice(0, 200)}`);
  const timeoutMs = timeoutFor(context, tool.server, toolContext);
  const result = await withInFlight(context, tool.server, toolContext.workstreamId, () =>
    route(context, tool.server, toolContext, (connection) =>
      connection.callTool(tool.originalName, args, { timeoutMs, signal: toolContext.signal }),
    ),
  );
  // A server's result is its words, not the user's: fenced as data (an error result too, since the server wrote it).
  return formatToolResult(result, { source: 'mcp', attributes: { server: tool.server, tool: tool.originalName } });
}

async function readResource(context: ManagerContext, uri: string, toolContext: ToolContext): Promise<ToolResult> {
  const target = resolveResource(context.catalog, uri);
  if (!target) throw new McpCallError('unknown-target', 'unknown resource (not in the resource catalog)');
  const timeoutMs = timeoutFor(context, target.server, toolContext);
  const contents = await withInFlight(context, target.server, toolContext.workstreamId, () =>
    route(context, target.server, toolContext, (connection) =>
      connection.readResource(uri, { timeoutMs, signal: toolContext.signal }),
    ),
  );
  return {
    output: fenceUntrusted(
      { source: 'mcp_resource', attributes: { server: target.server, uri } },
      formatResourceContents(contents),
    ),
    isError: false,
  };
}

async function usePrompt(
  context: ManagerContext,
  name: string,
  rawArgs: unknown,
  toolContext: ToolContext,
): Promise<ToolResult> {
  const prompt = context.catalog.promptMap.get(name);
  if (!prompt) throw new McpCallError('unknown-target', `unknown prompt ${name.slice(0, 200)}`);
  const args: Record<string, string> = {};
  if (rawArgs !== null && typeof rawArgs === 'object' && !Array.isArray(rawArgs)) {
    for (const [key, value] of Object.entries(rawArgs))
      args[key] = typeof value === 'string' ? value : JSON.stringify(value);
  }
  const timeoutMs = timeoutFor(context, prompt.server, toolContext);
  const messages = await withInFlight(context, prompt.server, toolContext.workstreamId, () =>
    route(context, prompt.server, toolContext, (connection) =>
      connection.getPrompt(prompt.originalName, args, { timeoutMs, signal: toolContext.signal }),
    ),
  );
  return { output: formatPromptMessages(messages), isError: false };
}

/** Picks the read_resource / use_prompt definitions out of the loaded tools/*.json set, falling back to ours. */
export function mcpBuiltinSchemasFrom(definitions: readonly ToolDefinition[]): McpBuiltinSchemas {
  return {
    readResource:
      definitions.find((definition) => definition.name === READ_RESOURCE) ?? DEFAULT_BUILTIN_SCHEMAS.readResource,
    usePrompt: definitions.find((definition) => definition.name === USE_PROMPT) ?? DEFAULT_BUILTIN_SCHEMAS.usePrompt,
  };
}
