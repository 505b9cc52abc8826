/** The one module that imports @modelcontextprotocol/sdk (loaded on first use through mcp-sdk.ts): connects one server and maps the SDK onto our own types and errors. */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { UnauthorizedError, type OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import { StreamableHTTPClientTransport, StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import {
  ElicitRequestSchema,
  ErrorCode,
  McpError as SdkMcpError,
  PromptListChangedNotificationSchema,
  ResourceListChangedNotificationSchema,
  ToolListChangedNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { linkedSignal } from '../../shared/abort.js';
import type { Logger } from '../../shared/logger.js';
import { McpCallError, isTransportLevelError } from './mcp-call-error.js';
import type { McpServerSpec } from './mcp-server-spec.js';
import type {
  McpContentItem,
  McpElicitationAnswer,
  McpElicitationParams,
  McpListKind,
  McpPromptInfo,
  McpPromptMessage,
  McpRequestOptions,
  McpResourceContent,
  McpResourceInfo,
  McpServerCapabilities,
  McpToolCallResult,
  McpToolInfo,
} from './mcp-types.js';
import { probeTcp } from './probe-tcp.js';
import { scrubbedEnvironment } from './scrubbed-environment.js';
import { stdioLaunch, type McpSandbox } from './mcp-sandbox.js';
import { StdioProcessTransport } from './stdio-process-transport.js';

export interface McpConnectOptions {
  spec: McpServerSpec;
  /** The gateway's process environment (scrubbed here before it reaches a child). */
  parentEnv: Readonly<Record<string, string | undefined>>;
  /** Bound for each connect step (TCP probe capped at 5 s, initialize). */
  timeoutMs: number;
  /** Sandbox for a spec with `sandbox: true`. */
  sandbox?: McpSandbox;
  signal?: AbortSignal;
  logger: Logger;
  clientVersion: string;
  onListChanged(kind: McpListKind): void;
  /** The transport closed (child exited, HTTP session lost). Not called after close(). */
  onClose(): void;
  onElicitation(request: McpElicitationParams, signal: AbortSignal): Promise<McpElicitationAnswer>;
  /** HTTP with OAuth: the user's credentials (the SDK discovers, refreshes and starts authorizations through it). */
  authProvider?: OAuthClientProvider;
}

/** One live session with one MCP server. Every request takes an explicit timeout (the SDK default is 60 s). */
export interface McpConnection {
  readonly capabilities: McpServerCapabilities;
  /** Child process id (stdio only). */
  readonly pid: number | undefined;
  listTools(options: McpRequestOptions): Promise<McpToolInfo[]>;
  listResources(options: McpRequestOptions): Promise<McpResourceInfo[]>;
  listResourceTemplates(options: McpRequestOptions): Promise<McpResourceInfo[]>;
  listPrompts(options: McpRequestOptions): Promise<McpPromptInfo[]>;
  callTool(name: string, args: Record<string, unknown>, options: McpRequestOptions): Promise<McpToolCallResult>;
  readResource(uri: string, options: McpRequestOptions): Promise<McpResourceContent[]>;
  getPrompt(name: string, args: Record<string, string>, options: McpRequestOptions): Promise<McpPromptMessage[]>;
  /** Closes the session and the transport (kills a stdio child's process group). Never throws. */
  close(): Promise<void>;
}

const MAX_PAGES = 50;

/** Opens the transport and performs `initialize`; throws an McpCallError(`transport`|`timeout`) on failure. */
export async function connectMcpServer(options: McpConnectOptions): Promise<McpConnection> {
  const { spec } = options;
  const client = new Client(
    { name: 'sandpiper', version: options.clientVersion },
    { capabilities: { elicitation: { form: {} } } },
  );
  let isClosing = false;
  let transport: Transport & { pid?: number | undefined };
  if (spec.transport === 'http') {
    await probeTcp(spec.name, spec.url, Math.min(options.timeoutMs, 5000));
    transport = new StreamableHTTPClientTransport(new URL(spec.url), {
      requestInit: { headers: spec.headers },
      ...(options.authProvider ? { authProvider: options.authProvider } : {}),
    });
  } else {
    const launch = await stdioLaunch(spec, options.sandbox);
    transport = new StdioProcessTransport({
      command: launch.command,
      args: launch.args,
      env: scrubbedEnvironment(options.parentEnv, spec.env),
      ...(launch.cwd !== undefined ? { cwd: launch.cwd } : {}),
      logger: options.logger,
    });
  }
  registerHandlers(client, options);
  client.onclose = () => {
    if (!isClosing) options.onClose();
  };
  client.onerror = (error) => options.logger.debug({ server: spec.name, err: error.message }, 'MCP transport error');
  const linked = linkedSignal(options.signal);
  try {
    await client.connect(transport, { timeout: options.timeoutMs, signal: linked.signal });
  } catch (error) {
    isClosing = true;
    await closeQuietly(client, transport);
    throw connectError(spec.name, error, options);
  } finally {
    linked.release();
  }
  const close = async (): Promise<void> => {
    isClosing = true;
    await closeQuietly(client, transport);
  };
  return wrapClient(client, transport.pid, close);
}

function registerHandlers(client: Client, options: McpConnectOptions): void {
  client.setNotificationHandler(ToolListChangedNotificationSchema, () => options.onListChanged('tools'));
  client.setNotificationHandler(ResourceListChangedNotificationSchema, () => options.onListChanged('resources'));
  client.setNotificationHandler(PromptListChangedNotificationSchema, () => options.onListChanged('prompts'));
  client.setRequestHandler(ElicitRequestSchema, async (request, extra) => {
    const params = request.params;
    if (params.mode === 'url') return { action: 'decline' as const };
    const answer = await options.onElicitation(
      { message: params.message, requestedSchema: params.requestedSchema as Record<string, unknown> },
      extra.signal,
    );
    return answer.content === undefined
      ? { action: answer.action }
      : { action: answer.action, content: answer.content };
  });
}

function wrapClient(client: Client, pid: number | undefined, close: () => Promise<void>): McpConnection {
  const caps = client.getServerCapabilities() ?? {};
  const capabilities: McpServerCapabilities = {
    tools: caps.tools !== undefined,
    resources: caps.resources !== undefined,
    prompts: caps.prompts !== undefined,
    toolsListChanged: caps.tools?.listChanged === true,
    resourcesListChanged: caps.resources?.listChanged === true,
    promptsListChanged: caps.prompts?.listChanged === true,
  };
  return {
    capabilities,
    pid,
    listTools: (o) =>
      paginate(o, async (cursor, r) => {
        const page = await client.listTools(cursor === undefined ? {} : { cursor }, requestOptions(r));
        return { items: page.tools.map(toToolInfo), next: page.nextCursor };
      }),
    listResources: (o) =>
      paginate(o, async (cursor, r) => {
        const page = await client.listResources(cursor === undefined ? {} : { cursor }, requestOptions(r));
        return { items: page.resources.map((r) => toResourceInfo(String(r.uri), r)), next: page.nextCursor };
      }),
    listResourceTemplates: (o) =>
      paginate(o, async (cursor, r) => {
        const page = await client.listResourceTemplates(cursor === undefined ? {} : { cursor }, requestOptions(r));
        return {
          items: page.resourceTemplates.map((t) => toResourceInfo(String(t.uriTemplate), t)),
          next: page.nextCursor,
        };
      }),
    listPrompts: (o) =>
      paginate(o, async (cursor, r) => {
        const page = await client.listPrompts(cursor === undefined ? {} : { cursor }, requestOptions(r));
        return { items: page.prompts.map(toPromptInfo), next: page.nextCursor };
      }),
    callTool: (name, args, o) =>
      guarded(o, async (r) => {
        const result = await client.callTool({ name, arguments: args }, undefined, requestOptions(r));
        const content = Array.isArray(result.content) ? (result.content as McpContentItem[]) : [];
        const structured = result.structuredContent as Record<string, unknown> | undefined;
        return { content, isError: result.isError === true, ...(structured ? { structuredContent: structured } : {}) };
      }),
    readResource: (uri, o) =>
      guarded(o, async (r) => {
        const result = await client.readResource({ uri }, requestOptions(r));
        return result.contents.map((c) => ({ ...(c as McpResourceContent), uri: String(c.uri) }));
      }),
    getPrompt: (name, args, o) =>
      guarded(o, async (r) => {
        const result = await client.getPrompt({ name, arguments: args }, requestOptions(r));
        return result.messages.map((m) => ({ role: m.role, content: m.content as McpContentItem }));
      }),
    close,
  };
}

function requestOptions(options: McpRequestOptions): { timeout: number; signal?: AbortSignal } {
  return { timeout: options.timeoutMs, ...(options.signal ? { signal: options.signal } : {}) };
}

async function paginate<T>(
  options: McpRequestOptions,
  fetchPage: (
    cursor: string | undefined,
    request: McpRequestOptions,
  ) => Promise<{ items: T[]; next: string | undefined }>,
): Promise<T[]> {
  return guarded(options, async (request) => {
    const all: T[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < MAX_PAGES; page += 1) {
      const { items, next } = await fetchPage(cursor, request);
      all.push(...items);
      if (!next) break;
      cursor = next;
    }
    return all;
  });
}

/**
 * Runs one request and maps SDK/transport failures onto McpCallError; a caller abort is rethrown as is.
 * The SDK never removes its abort listener, so each request gets a short-lived child signal instead of the caller's.
 */
async function guarded<T>(
  options: McpRequestOptions,
  run: (requestOptions: McpRequestOptions) => Promise<T>,
): Promise<T> {
  const child = linkedSignal(options.signal);
  try {
    return await run({ timeoutMs: options.timeoutMs, signal: child.signal });
  } catch (error) {
    const signal = options.signal;
    if (signal?.aborted) {
      const reason: unknown = signal.reason;
      if (reason instanceof Error && reason.name === 'TimeoutError') {
        throw new McpCallError('timeout', `MCP request timed out`, error);
      }
      throw reason instanceof Error ? reason : error;
    }
    throw classifyError(error, options.timeoutMs);
  } finally {
    child.release();
  }
}

/** The server wants (other) credentials: no token, or one refreshing could not revive. */
function isUnauthorized(error: unknown): boolean {
  return error instanceof UnauthorizedError || (error instanceof StreamableHTTPError && error.code === 401);
}

function classifyError(error: unknown, timeoutMs: number): McpCallError {
  if (error instanceof McpCallError) return error;
  if (isUnauthorized(error)) return new McpCallError('unauthorized', 'MCP server needs authorization', error);
  if (error instanceof SdkMcpError) {
    if (error.code === ErrorCode.RequestTimeout) {
      return new McpCallError('timeout', `MCP request timed out after ${Math.round(timeoutMs / 1000)}s`, error);
    }
    if (error.code === ErrorCode.ConnectionClosed) return new McpCallError('transport', 'MCP connection closed', error);
    return new McpCallError('protocol', `MCP server error ${error.code}: ${error.message.slice(0, 300)}`, error);
  }
  if (isTransportLevelError(error)) return new McpCallError('transport', 'MCP transport failed', error);
  const message = error instanceof Error ? error.message.slice(0, 300) : 'unknown failure';
  return new McpCallError('other', `MCP request failed: ${message}`, error);
}

function connectError(name: string, error: unknown, options: McpConnectOptions): unknown {
  if (options.signal?.aborted) return options.signal.reason ?? error;
  if (error instanceof McpCallError) return error;
  if (isUnauthorized(error)) return new McpCallError('unauthorized', `MCP server '${name}' needs authorization`, error);
  if (error instanceof SdkMcpError && error.code === ErrorCode.RequestTimeout) {
    return new McpCallError('timeout', `MCP handshake timed out after ${Math.round(options.timeoutMs / 1000)}s`, error);
  }
  const detail = error instanceof Error ? error.message.slice(0, 200) : 'unknown failure';
  return new McpCallError('transport', `MCP server '${name}' connection failed: ${detail}`, error);
}

/** Bounded (5 s per step) and never throws: a stuck close must not wedge removal or shutdown. */
async function closeQuietly(client: Client, transport: Transport): Promise<void> {
  // Closing a connection being dropped: its errors have no one to act on them (the server is gone or going).
  const bounded = (work: Promise<unknown>): Promise<unknown> =>
    // Purpose: timeout (each close step is bounded to 5 s).
    Promise.race([work.catch(() => undefined), new Promise((resolve) => setTimeout(resolve, 5000).unref())]);
  if (transport instanceof StreamableHTTPClientTransport && transport.sessionId !== undefined) {
    await bounded(transport.terminateSession());
  }
  await bounded(client.close());
  await bounded(transport.close());
}

function toToolInfo(tool: {
  name: string;
  title?: string | undefined;
  description?: string | undefined;
  inputSchema: unknown;
  annotations?: unknown;
}): McpToolInfo {
  const schema = tool.inputSchema as Record<string, unknown> | undefined;
  return {
    name: tool.name,
    ...(tool.title ? { title: tool.title } : {}),
    description: tool.description ?? '',
    inputSchema: schema && typeof schema === 'object' ? schema : { type: 'object', properties: {} },
    ...(tool.annotations ? { annotations: { ...(tool.annotations as Record<string, unknown>) } } : {}),
  };
}

function toResourceInfo(
  uri: string,
  r: { name?: string; description?: string | undefined; mimeType?: string | undefined },
): McpResourceInfo {
  return { uri, name: r.name ?? '', description: r.description ?? '', mimeType: r.mimeType ?? '' };
}

function toPromptInfo(p: {
  name: string;
  description?: string | undefined;
  arguments?: { name: string; description?: string | undefined; required?: boolean | undefined }[] | undefined;
}): McpPromptInfo {
  return {
    name: p.name,
    description: p.description ?? '',
    arguments: (p.arguments ?? []).map((a) => ({
      name: a.name,
      description: a.description ?? '',
      required: a.required === true,
    })),
  };
}
