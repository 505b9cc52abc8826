/**
 * Calls to OAuth servers: each caller's own session with their own token. A caller without a valid token gets a
 * private link and the call waits (cancelable, bounded) until the callback (`mcp-oauth-callback.ts`) stores the token
 * (docs/design/mcp-oauth.md).
 */
import { AsyncMutex } from './async-mutex.js';
import { McpCallError } from './mcp-call-error.js';
import type { McpConnection } from './mcp-connection.js';
import { handleElicitation } from './mcp-elicitation.js';
import { authorize, connectMcpServer } from './mcp-sdk.js';
import {
  errorMessage,
  type ManagerContext,
  type McpAuthorizationEnd,
  type McpCaller,
  type McpOAuthRuntime,
  type ServerState,
} from './mcp-manager-context.js';
import { UserOAuthProvider } from './mcp-oauth-provider.js';
import { AuthorizationWaitError, hashState, type AuthorizationBinding } from './mcp-oauth-states.js';
import { discover, rebuildCatalog } from './mcp-server-lifecycle.js';

function runtimeOf(context: ManagerContext): McpOAuthRuntime {
  if (!context.oauth)
    throw new McpCallError('not-connected', 'MCP OAuth is not configured (mcp.token_key and gateway.public_url)');
  return context.oauth;
}

/** The SDK's OAuth provider for one user of one server (`codeVerifier`: the code exchange of a callback). */
export function providerFor(
  runtime: McpOAuthRuntime,
  state: ServerState,
  binding: AuthorizationBinding,
  codeVerifier?: string,
): UserOAuthProvider {
  const settings = state.spec.oauth ?? { scopes: [] };
  return new UserOAuthProvider({
    binding,
    settings,
    vault: runtime.vault,
    states: runtime.states,
    redirectUrl: runtime.redirectUrl,
    ...(codeVerifier !== undefined ? { codeVerifier } : {}),
  });
}

/** Runs one request on the caller's own session; an `unauthorized` answer starts (at most one) new authorization. */
export async function callAsUser<T>(
  context: ManagerContext,
  serverName: string,
  workstreamId: string,
  signal: AbortSignal,
  run: (connection: McpConnection) => Promise<T>,
): Promise<T> {
  const runtime = runtimeOf(context);
  const state = context.servers.get(serverName);
  if (!state) throw new McpCallError('not-connected', `MCP server '${serverName}' is not configured`);
  const caller = await runtime.callerOf(workstreamId);
  if (!caller)
    throw new McpCallError(
      'not-connected',
      `MCP server '${serverName}' needs a user's authorization, and this call has no user`,
    );
  const connection = await userConnection(context, runtime, state, caller, signal);
  try {
    return await run(connection);
  } catch (error) {
    if (!(error instanceof McpCallError) || (error.kind !== 'unauthorized' && error.kind !== 'transport')) throw error;
    await dropUserConnection(state, caller.userId, connection);
    // A refused token never reached the tool, so asking for a new authorization and running it once more is safe;
    // after a transport failure the call may have run: the next call opens a new session instead.
    if (error.kind === 'transport') throw error;
    return run(await userConnection(context, runtime, state, caller, signal));
  }
}

async function dropUserConnection(state: ServerState, userId: string, connection: McpConnection): Promise<void> {
  if (state.userConnections.get(userId) === connection) state.userConnections.delete(userId);
  await connection.close();
}

/** One user's session work on one server runs one at a time. */
export function userMutex(state: ServerState, userId: string): AsyncMutex {
  const existing = state.userMutexes.get(userId);
  if (existing) return existing;
  const created = new AsyncMutex();
  state.userMutexes.set(userId, created);
  return created;
}

/** An access token expiring this soon is refreshed before it is used (not only after a 401). */
const REFRESH_MARGIN_MS = 60_000;

/** The caller's live session, connecting (and, without a usable token, authorizing first) under a per-user mutex. */
async function userConnection(
  context: ManagerContext,
  runtime: McpOAuthRuntime,
  state: ServerState,
  caller: McpCaller,
  signal: AbortSignal,
): Promise<McpConnection> {
  return userMutex(state, caller.userId).run(async () => {
    const binding: AuthorizationBinding = {
      server: state.spec.name,
      userId: caller.userId,
      conversationId: caller.conversationId,
    };
    const first = providerFor(runtime, state, binding);
    const usable = await refreshAhead(context, runtime, state, caller.userId, first);
    const existing = state.userConnections.get(caller.userId);
    if (existing && usable) return existing;
    if (existing) await dropUserConnection(state, caller.userId, existing);
    if (usable) {
      try {
        return await connectUser(context, state, caller.userId, first, signal);
      } catch (error) {
        if (!(error instanceof McpCallError) || error.kind !== 'unauthorized' || !first.authorizationUrl) throw error;
      }
    }
    await requestAuthorization(runtime, binding, first, signal);
    return connectUser(context, state, caller.userId, providerFor(runtime, state, binding), signal);
  });
}

/**
 * Refreshes the user's stored token when it expires within the margin (its expiry is stored beside it). False when the
 * refresh was refused and a new authorization was started instead (`provider.authorizationUrl` is set).
 */
async function refreshAhead(
  context: ManagerContext,
  runtime: McpOAuthRuntime,
  state: ServerState,
  userId: string,
  provider: UserOAuthProvider,
): Promise<boolean> {
  if (!(await runtime.vault.needsRefresh(state.spec.name, userId, Date.now() + REFRESH_MARGIN_MS))) return true;
  try {
    const result = await authorize(provider, { serverUrl: state.spec.url });
    return result === 'AUTHORIZED' || !provider.authorizationUrl;
  } catch (error) {
    // The request's own 401 path still refreshes or asks for a new authorization.
    context.settings.logger.warn(
      { server: state.spec.name, err: errorMessage(error).slice(0, 200) },
      'MCP OAuth refresh before use failed',
    );
    return true;
  }
}

/**
 * Sends the link through the channel handler and waits for the callback (on any instance), a Cancel, the abort or the
 * time-out. The handler may stay pending to show the wait; its signal aborts with how the wait ended.
 */
async function requestAuthorization(
  runtime: McpOAuthRuntime,
  binding: AuthorizationBinding,
  provider: UserOAuthProvider,
  signal: AbortSignal,
): Promise<void> {
  const handler = runtime.handler;
  const url = provider.authorizationUrl;
  if (!handler || !url || provider.issuedState === undefined) {
    throw new McpCallError(
      'unauthorized',
      `MCP server '${binding.server}' needs authorization, and there is no channel to send the link through`,
    );
  }
  const waitId = hashState(provider.issuedState);
  const waiting = new AbortController();
  const onAbort = (): void => waiting.abort('stopped' satisfies McpAuthorizationEnd);
  signal.addEventListener('abort', onAbort, { once: true });
  const expiresAt = new Date(Date.now() + runtime.timeoutMs).toISOString();
  const wait = runtime.states.waitFor(waitId, runtime.timeoutMs, waiting.signal);
  const shown = handler({ ...binding, url: url.toString(), expiresAt, waitId }, waiting.signal);
  let end: McpAuthorizationEnd = 'authorized';
  try {
    await Promise.race([shown.then(() => wait), wait]);
  } catch (error) {
    end = error instanceof AuthorizationWaitError ? error.ending : 'stopped';
    waiting.abort(end);
    if (signal.aborted) throw signal.reason instanceof Error ? signal.reason : error;
    if (error instanceof AuthorizationWaitError)
      throw new McpCallError('unauthorized', `MCP server '${binding.server}': ${error.message}`, error);
    throw new McpCallError('unauthorized', `MCP server '${binding.server}': ${errorMessage(error)}`, error);
  } finally {
    signal.removeEventListener('abort', onAbort);
    waiting.abort(end);
    await Promise.allSettled([wait, shown]);
  }
}

/** Opens the user's own session with `provider` and keeps it; the first one of an unknown catalog adopts it. */
export async function connectUser(
  context: ManagerContext,
  state: ServerState,
  userId: string,
  provider: UserOAuthProvider,
  signal: AbortSignal,
): Promise<McpConnection> {
  const name = state.spec.name;
  const opened: { connection?: McpConnection } = {};
  const connection = await connectMcpServer({
    spec: state.spec,
    parentEnv: context.settings.parentEnv,
    timeoutMs: context.settings.connectTimeoutMs,
    signal,
    logger: context.settings.logger,
    clientVersion: context.settings.clientVersion,
    authProvider: provider,
    onListChanged: () => undefined,
    onClose: () => {
      if (opened.connection && state.userConnections.get(userId) === opened.connection)
        state.userConnections.delete(userId);
    },
    onElicitation: (request, elicitationSignal) => handleElicitation(context, name, request, elicitationSignal),
  });
  opened.connection = connection;
  state.userConnections.set(userId, connection);
  if (state.needsAuthorization) await adoptCatalog(context, state, connection, signal);
  return connection;
}

/** The first authorized session makes an unknown catalog known (it is cached; calls still use each caller's token). */
async function adoptCatalog(
  context: ManagerContext,
  state: ServerState,
  connection: McpConnection,
  signal: AbortSignal,
): Promise<void> {
  try {
    state.catalog = await discover(context, connection, signal);
    state.needsAuthorization = false;
    state.lastError = '';
    rebuildCatalog(context, ['tools', 'resources', 'prompts']);
  } catch (error) {
    context.settings.logger.warn(
      { server: state.spec.name, err: errorMessage(error) },
      'MCP OAuth server catalog could not be listed',
    );
  }
}

/**
 * At start-up an OAuth server that will not list without a token learns its catalog from a stored authorization (the
 * first user's, kept across restarts); without one it waits for the first user. Never sends a link; never throws.
 */
export async function discoverWithStoredToken(
  context: ManagerContext,
  state: ServerState,
  signal?: AbortSignal,
): Promise<void> {
  const runtime = context.oauth;
  if (!runtime) return;
  try {
    for (const entry of await runtime.vault.list({ server: state.spec.name })) {
      const provider = providerFor(runtime, state, { server: entry.server, userId: entry.userId, conversationId: '' });
      const connected = await connectUser(
        context,
        state,
        entry.userId,
        provider,
        signal ?? new AbortController().signal,
      ).then(
        () => true,
        () => false,
      );
      if (connected && !state.needsAuthorization) return;
    }
  } catch (error) {
    context.settings.logger.warn(
      { server: state.spec.name, err: errorMessage(error) },
      'MCP OAuth stored authorizations could not be read',
    );
  }
}

/**
 * `sandpiper mcp auth login`: an operator authorizes a server ahead of time as `userId`; the link comes back to them
 * (not through a channel). After the callback the server's catalog becomes known.
 */
export async function startLogin(
  context: ManagerContext,
  serverName: string,
  userId: string,
  signal: AbortSignal,
): Promise<{ authorized: true } | { url: string }> {
  const runtime = runtimeOf(context);
  const state = context.servers.get(serverName);
  if (!state?.spec.oauth)
    throw new McpCallError('unknown-target', `no OAuth MCP server named ${serverName.slice(0, 64)}`);
  const provider = providerFor(runtime, state, { server: serverName, userId, conversationId: '' });
  try {
    await userMutex(state, userId).run(() => connectUser(context, state, userId, provider, signal));
    return { authorized: true };
  } catch (error) {
    if (error instanceof McpCallError && error.kind === 'unauthorized' && provider.authorizationUrl)
      return { url: provider.authorizationUrl.toString() };
    throw error;
  }
}

/** Revokes stored tokens and closes the matching sessions; returns how many token rows went. */
export async function revokeAuthorizations(
  context: ManagerContext,
  server: string | undefined,
  userId: string | undefined,
): Promise<number> {
  const count = await runtimeOf(context).vault.revoke(server, userId);
  for (const state of context.servers.values()) {
    if (server !== undefined && state.spec.name !== server) continue;
    for (const [user, connection] of [...state.userConnections]) {
      if (userId !== undefined && user !== userId) continue;
      state.userConnections.delete(user);
      await connection.close();
    }
  }
  return count;
}
