/** Connecting, discovering, refreshing and tearing down one server, and swapping the merged catalog. */
import { buildMcpCatalog, type ServerCatalog } from './mcp-catalog.js';
import { McpCallError } from './mcp-call-error.js';
import type { McpConnection } from './mcp-connection.js';
import { connectMcpServer } from './mcp-sdk.js';
import { handleElicitation } from './mcp-elicitation.js';
import {
  emptyServerCatalog,
  failureText,
  notifyListeners,
  track,
  type ManagerContext,
  type ServerState,
} from './mcp-manager-context.js';
import { schedulePromptSync } from './mcp-prompt-sync.js';
import type { McpListKind } from './mcp-types.js';

const ALL_KINDS: readonly McpListKind[] = ['tools', 'resources', 'prompts'];

/** Rebuilds the merged catalog from every server's lists, swaps it, and tells listeners; prompts also trigger a sync. */
export function rebuildCatalog(context: ManagerContext, kinds: readonly McpListKind[]): void {
  const perServer = new Map<string, ServerCatalog>();
  for (const [name, state] of context.servers) perServer.set(name, state.catalog);
  context.catalog = buildMcpCatalog(perServer, context.settings.logger);
  for (const kind of kinds) notifyListeners(context, kind);
  if (kinds.includes('prompts')) schedulePromptSync(context);
}

/**
 * Connects (or reconnects) a server and lists everything it offers. With `reuse`, an existing live connection
 * (made by a concurrent caller) is returned instead. Throws McpCallError; never touches the breaker.
 */
export async function connectServer(
  context: ManagerContext,
  state: ServerState,
  options: { reuse: boolean; signal?: AbortSignal },
): Promise<McpConnection> {
  return state.mutex.run(async () => {
    if (options.reuse && state.connection) return state.connection;
    if (context.isShutdown) throw new McpCallError('not-connected', 'MCP manager is shut down');
    await closeConnection(state);
    const generation = state.generation + 1;
    state.generation = generation;
    const name = state.spec.name;
    const connection = await connectMcpServer({
      spec: state.spec,
      parentEnv: context.settings.parentEnv,
      ...(context.settings.sandbox ? { sandbox: context.settings.sandbox } : {}),
      timeoutMs: context.settings.connectTimeoutMs,
      ...(options.signal ? { signal: options.signal } : {}),
      logger: context.settings.logger,
      clientVersion: context.settings.clientVersion,
      onListChanged: (kind) => {
        if (state.generation === generation) scheduleListRefresh(context, state, kind);
      },
      onClose: () => {
        // Only this generation's connection can be in state.connection; before it is stored there is nothing to evict.
        if (state.generation === generation) evictConnection(context, state, 'transport closed');
      },
      onElicitation: (request, signal) => handleElicitation(context, name, request, signal),
    });
    try {
      state.catalog = await discover(context, connection, options.signal);
    } catch (error) {
      await connection.close();
      throw error;
    }
    if (state.generation !== generation || context.isShutdown || context.servers.get(name) !== state) {
      await connection.close();
      throw new McpCallError('not-connected', `MCP server '${name}' was removed while connecting`);
    }
    state.connection = connection;
    state.hasListedPrompts = true;
    state.lastError = '';
    logConnected(context, state, connection);
    rebuildCatalog(context, ALL_KINDS);
    return connection;
  });
}

export async function discover(
  context: ManagerContext,
  connection: McpConnection,
  signal?: AbortSignal,
): Promise<ServerCatalog> {
  const options = { timeoutMs: context.settings.listTimeoutMs, ...(signal ? { signal } : {}) };
  const caps = connection.capabilities;
  const [tools, resources, templates, prompts] = await Promise.all([
    connection.listTools(options),
    caps.resources ? connection.listResources(options) : Promise.resolve([]),
    caps.resources ? connection.listResourceTemplates(options) : Promise.resolve([]),
    caps.prompts ? connection.listPrompts(options) : Promise.resolve([]),
  ]);
  return { tools, resources, templates, prompts };
}

function logConnected(context: ManagerContext, state: ServerState, connection: McpConnection): void {
  const caps = connection.capabilities;
  const push = [
    caps.toolsListChanged && 'tools',
    caps.resourcesListChanged && 'resources',
    caps.promptsListChanged && 'prompts',
  ].filter(Boolean);
  context.settings.logger.info(
    {
      server: state.spec.name,
      source: state.spec.source,
      tools: state.catalog.tools.length,
      resources: state.catalog.resources.length + state.catalog.templates.length,
      prompts: state.catalog.prompts.length,
      push,
    },
    'MCP server connected',
  );
}

/** Drops a dead session; catalogs stay so the next call can trigger an automatic reconnect. */
export function evictConnection(context: ManagerContext, state: ServerState, why: string): void {
  const connection = state.connection;
  if (!connection) return;
  state.connection = undefined;
  context.settings.logger.warn({ server: state.spec.name, why }, 'MCP server session lost');
  track(context, connection.close(), 'connection close');
  notifyListeners(context, 'servers');
}

export async function closeConnection(state: ServerState): Promise<void> {
  const connection = state.connection;
  state.connection = undefined;
  if (connection) await connection.close();
}

/** Tears a server down completely (removal, shutdown): timers, connection, catalog. */
export async function teardownServer(state: ServerState): Promise<void> {
  for (const timer of state.debounceTimers.values()) clearTimeout(timer);
  state.debounceTimers.clear();
  state.generation += 1;
  await state.mutex.run(() => closeConnection(state));
  const userConnections = [...state.userConnections.values()];
  state.userConnections.clear();
  await Promise.all(userConnections.map((connection) => connection.close()));
  state.catalog = emptyServerCatalog();
}

/** Push notification: refresh that list now, or at most once per `debounceMs` (trailing edge, nothing is lost). */
export function scheduleListRefresh(context: ManagerContext, state: ServerState, kind: McpListKind): void {
  if (context.isShutdown || state.debounceTimers.has(kind)) return;
  const last = state.lastRefreshAt.get(kind);
  const wait = last === undefined ? 0 : Math.max(0, last + context.settings.debounceMs - context.settings.now());
  // Purpose: throttle (list refreshes of one kind are debounced).
  const timer = setTimeout(() => {
    state.debounceTimers.delete(kind);
    state.lastRefreshAt.set(kind, context.settings.now());
    track(context, refreshKindRecording(context, state, kind), `${kind} refresh`);
  }, wait);
  state.debounceTimers.set(kind, timer);
}

async function refreshKindRecording(context: ManagerContext, state: ServerState, kind: McpListKind): Promise<void> {
  try {
    // Under the server's mutex: a notification that arrives while connect is still discovering waits for it.
    await state.mutex.run(() => refreshKind(context, state, kind));
    state.lastError = '';
  } catch (error) {
    state.lastError = failureText('Refresh failed', error);
    if (error instanceof McpCallError && error.kind === 'transport') evictConnection(context, state, 'refresh failed');
  }
}

/** Re-lists one kind from a connected server and rebuilds the merged catalog. */
export async function refreshKind(
  context: ManagerContext,
  state: ServerState,
  kind: McpListKind,
  signal?: AbortSignal,
): Promise<void> {
  const connection = state.connection;
  if (!connection) throw new McpCallError('not-connected', `MCP server '${state.spec.name}' is not connected`);
  const options = { timeoutMs: context.settings.listTimeoutMs, ...(signal ? { signal } : {}) };
  const caps = connection.capabilities;
  if (kind === 'tools') {
    state.catalog = { ...state.catalog, tools: await connection.listTools(options) };
  } else if (kind === 'resources') {
    if (!caps.resources) return;
    const [resources, templates] = await Promise.all([
      connection.listResources(options),
      connection.listResourceTemplates(options),
    ]);
    state.catalog = { ...state.catalog, resources, templates };
  } else {
    if (!caps.prompts) return;
    state.catalog = { ...state.catalog, prompts: await connection.listPrompts(options) };
    state.hasListedPrompts = true;
  }
  if (state.connection === connection) rebuildCatalog(context, [kind]);
}

/** Refreshes all three lists of a connected server concurrently. */
export async function refreshServer(context: ManagerContext, state: ServerState, signal?: AbortSignal): Promise<void> {
  await Promise.all(ALL_KINDS.map((kind) => refreshKind(context, state, kind, signal)));
  state.lastError = '';
}
