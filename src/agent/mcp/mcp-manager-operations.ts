/** Manager operations over many servers: start-up connect, manual refresh, reconnect, reconcile and removal. */
import { combineSignals } from '../../shared/abort.js';
import { McpCallError } from './mcp-call-error.js';
import {
  createServerState,
  emptyServerCatalog,
  failureText,
  notifyListeners,
  track,
  type ManagerContext,
  type ServerState,
} from './mcp-manager-context.js';
import { discoverWithStoredToken } from './mcp-oauth-calls.js';
import { schedulePromptSync } from './mcp-prompt-sync.js';
import { specFingerprint, type McpServerSpec } from './mcp-server-spec.js';
import { connectServer, rebuildCatalog, refreshServer, teardownServer } from './mcp-server-lifecycle.js';
import { serverStatus, unknownServerStatus, type McpServerStatus } from './mcp-status.js';

export interface McpRefreshOutcome {
  added: string[];
  removed: string[];
  /** Set when this server's refresh failed (also in its status). */
  error?: string;
}

export interface McpReconcileResult {
  added: string[];
  removed: string[];
  updated: string[];
  /** Servers that are configured but did not connect (they stay configured; status shows the error). */
  failed: string[];
}

/** Connects one server, recording the outcome in the breaker and `lastError`; never throws. */
async function connectRecording(context: ManagerContext, state: ServerState, signal?: AbortSignal): Promise<boolean> {
  try {
    await connectServer(context, state, { reuse: false, ...(signal ? { signal } : {}) });
    return true;
  } catch (error) {
    if (context.servers.get(state.spec.name) !== state) return false;
    if (state.spec.oauth && error instanceof McpCallError && error.kind === 'unauthorized') {
      // Its tools are unknown until someone authorizes: the model gets an `authorize` tool instead (mcp-oauth-tools).
      state.needsAuthorization = true;
      state.lastError = 'needs authorization';
      await discoverWithStoredToken(context, state, signal);
      notifyListeners(context, 'tools');
      return !state.needsAuthorization;
    }
    const kind = error instanceof McpCallError ? error.kind : error instanceof Error ? error.name : 'Error';
    state.lastError = failureText(kind, error);
    context.breaker.recordFailure(state.spec.name);
    context.settings.logger.warn({ server: state.spec.name, err: state.lastError }, 'MCP server failed to connect');
    return false;
  }
}

export async function startServers(context: ManagerContext, signal?: AbortSignal): Promise<void> {
  const all = Promise.allSettled(
    [...context.servers.values()].map((state) => connectRecording(context, state, signal)),
  );
  track(context, all, 'start-up connect');
  await new Promise<void>((resolve) => {
    // Purpose: timeout (start-up waits this long for servers, then goes on without them).
    const timer = setTimeout(resolve, context.settings.startWaitMs);
    timer.unref();
    const onAbort = (): void => resolve();
    signal?.addEventListener('abort', onAbort, { once: true });
    void all.finally(() => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      resolve();
    });
  });
}

async function refreshOne(
  context: ManagerContext,
  state: ServerState,
  signal: AbortSignal,
): Promise<McpRefreshOutcome> {
  const name = state.spec.name;
  const before = new Set(context.catalog.tools.filter((tool) => tool.server === name).map((tool) => tool.name));
  try {
    if (state.connection) await refreshServer(context, state, signal);
    else await connectServer(context, state, { reuse: false, signal });
    context.breaker.recordSuccess(name);
  } catch (error) {
    state.lastError = failureText('Refresh failed', error);
    return { added: [], removed: [], error: state.lastError };
  }
  const after = new Set(context.catalog.tools.filter((tool) => tool.server === name).map((tool) => tool.name));
  return {
    added: [...after].filter((tool) => !before.has(tool)).sort(),
    removed: [...before].filter((tool) => !after.has(tool)).sort(),
  };
}

/** One overall budget (connect timeout); servers refresh concurrently; a disconnected server is reconnected. */
export async function refreshServers(
  context: ManagerContext,
  serverName: string | undefined,
  signal?: AbortSignal,
): Promise<Record<string, McpRefreshOutcome>> {
  const budget = combineSignals([signal], context.settings.connectTimeoutMs);
  const targets = [...context.servers.values()].filter(
    (state) => serverName === undefined || state.spec.name === serverName,
  );
  const outcomes = await Promise.all(
    targets.map(async (state) => [state.spec.name, await refreshOne(context, state, budget)] as const),
  );
  schedulePromptSync(context);
  return Object.fromEntries(outcomes);
}

/** Clears the breaker and reconnects; on failure the server's catalog is dropped so models stop seeing dead tools. */
export async function reconnectServer(
  context: ManagerContext,
  serverName: string,
  signal?: AbortSignal,
): Promise<McpServerStatus> {
  const state = context.servers.get(serverName);
  if (!state) return unknownServerStatus(serverName, 'unknown server');
  context.breaker.clear(serverName);
  const budget = combineSignals([signal], context.settings.connectTimeoutMs * 2);
  try {
    await connectServer(context, state, { reuse: false, signal: budget });
  } catch (error) {
    state.catalog = emptyServerCatalog();
    state.lastError = failureText('Reconnect failed', error);
    rebuildCatalog(context, ['tools', 'resources', 'prompts']);
  }
  return serverStatus(context, state);
}

/** Stops and forgets a server; its prompt templates are removed by the following sync. */
export async function removeServer(context: ManagerContext, serverName: string): Promise<boolean> {
  const state = context.servers.get(serverName);
  if (!state) return false;
  context.servers.delete(serverName);
  context.breaker.clear(serverName);
  await teardownServer(state);
  rebuildCatalog(context, ['tools', 'resources']);
  notifyListeners(context, 'prompts');
  schedulePromptSync(context, [serverName]);
  context.settings.logger.info({ server: serverName }, 'MCP server removed');
  return true;
}

export async function reconcileServers(
  context: ManagerContext,
  desired: readonly McpServerSpec[],
  signal?: AbortSignal,
): Promise<McpReconcileResult> {
  const result: McpReconcileResult = { added: [], removed: [], updated: [], failed: [] };
  const wanted = new Map(desired.map((spec) => [spec.name, spec]));
  const work: Promise<void>[] = [];
  for (const name of [...context.servers.keys()]) {
    if (!wanted.has(name)) work.push(removeServer(context, name).then(() => void result.removed.push(name)));
  }
  for (const spec of wanted.values()) {
    const existing = context.servers.get(spec.name);
    if (existing && specFingerprint(existing.spec) === specFingerprint(spec)) {
      existing.spec = spec;
      continue;
    }
    const list = existing ? result.updated : result.added;
    work.push(
      replaceServer(context, existing, spec, signal).then((isConnected) => {
        list.push(spec.name);
        if (!isConnected) result.failed.push(spec.name);
      }),
    );
  }
  await Promise.all(work);
  for (const list of Object.values(result)) list.sort();
  if (result.added.length + result.removed.length + result.updated.length > 0) {
    context.settings.logger.info(
      { added: result.added, removed: result.removed, updated: result.updated, failed: result.failed },
      'MCP servers reconciled',
    );
  }
  return result;
}

async function replaceServer(
  context: ManagerContext,
  existing: ServerState | undefined,
  spec: McpServerSpec,
  signal?: AbortSignal,
): Promise<boolean> {
  if (existing) {
    context.servers.delete(spec.name);
    context.breaker.clear(spec.name);
    await teardownServer(existing);
  }
  const state = createServerState(spec);
  context.servers.set(spec.name, state);
  const isConnected = await connectRecording(context, state, signal);
  if (!isConnected) rebuildCatalog(context, ['tools', 'resources', 'prompts']);
  return isConnected;
}
