/** Sends one request to a server through the breaker: gate, auto-reconnect, count failures, evict dead sessions. */
import { isAbortError } from '../../shared/abort.js';
import { traceMcpCall } from '../agent-telemetry.js';
import { McpCallError, countsAsBreakerFailure } from './mcp-call-error.js';
import type { McpConnection } from './mcp-connection.js';
import type { ManagerContext, ServerState } from './mcp-manager-context.js';
import { connectServer, evictConnection } from './mcp-server-lifecycle.js';

/** Throws McpCallError (or the caller's abort). Success, including `isError` tool results, closes the breaker. */
export function dispatch<T>(
  context: ManagerContext,
  serverName: string,
  signal: AbortSignal | undefined,
  run: (connection: McpConnection) => Promise<T>,
): Promise<T> {
  return traceMcpCall(serverName, () => dispatchThroughBreaker(context, serverName, signal, run));
}

async function dispatchThroughBreaker<T>(
  context: ManagerContext,
  serverName: string,
  signal: AbortSignal | undefined,
  run: (connection: McpConnection) => Promise<T>,
): Promise<T> {
  const gate = context.breaker.gate(serverName);
  if (!gate.isAllowed) {
    const seconds = Math.ceil(gate.remainingMs / 1000);
    throw new McpCallError(
      'circuit-open',
      `MCP server '${serverName}' circuit open (cooldown ${seconds}s remaining); an operator can reconnect it`,
    );
  }
  const state = context.servers.get(serverName);
  if (!state) throw new McpCallError('not-connected', `MCP server '${serverName}' is not configured`);
  const connection = state.connection ?? (await autoReconnect(context, state, signal));
  try {
    const value = await run(connection);
    context.breaker.recordSuccess(serverName);
    return value;
  } catch (error) {
    if (error instanceof McpCallError) {
      if (error.kind === 'transport' && state.connection === connection)
        evictConnection(context, state, 'request failed');
      if (countsAsBreakerFailure(error.kind)) context.breaker.recordFailure(serverName);
    } else if (!isAbortError(error) && signal?.aborted !== true) {
      context.breaker.recordFailure(serverName);
    }
    throw error;
  }
}

async function autoReconnect(
  context: ManagerContext,
  state: ServerState,
  signal: AbortSignal | undefined,
): Promise<McpConnection> {
  const name = state.spec.name;
  context.settings.logger.info({ server: name }, 'MCP server not connected; reconnecting');
  try {
    return await connectServer(context, state, { reuse: true, ...(signal ? { signal } : {}) });
  } catch (error) {
    if (isAbortError(error) && signal?.aborted === true) throw error;
    context.breaker.recordFailure(name);
    const detail = error instanceof Error ? error.message : String(error);
    throw new McpCallError('not-connected', `MCP server '${name}' reconnect failed: ${detail}`, error);
  }
}
