/** The MCP client manager: connections to every configured server, merged catalogs, and the MCP ToolSource. */
import { GatewayError } from '../../shared/errors.js';
import { createSilentLogger, type Logger } from '../../shared/logger.js';
import type { McpCredentialStore } from '../../storage/mcp-credential-store.js';
import type { McpOAuthStateStore } from '../../storage/mcp-oauth-state-store.js';
import type { PromptTemplateStore } from '../../storage/prompt-template-store.js';
import type { ToolContext, ToolDefinition, ToolPreparation, ToolResult, ToolSource } from '../tools/tool.js';
import { AsyncMutex } from './async-mutex.js';
import type { McpSandbox } from './mcp-sandbox.js';
import { CircuitBreaker, type CircuitBreakerOptions } from './circuit-breaker.js';
import { EMPTY_CATALOG, type McpCatalog } from './mcp-catalog.js';
import {
  createServerState,
  type ManagerContext,
  type McpAuthorizationHandler,
  type McpCaller,
  type McpChangeKind,
  type McpElicitationHandler,
  type McpOAuthRuntime,
} from './mcp-manager-context.js';
import { completeAuthorization, declineAuthorization, type McpAuthorizationOutcome } from './mcp-oauth-callback.js';
import { revokeAuthorizations, startLogin } from './mcp-oauth-calls.js';
import { AuthorizationStates } from './mcp-oauth-states.js';
import {
  authorizationPromptSection,
  authorizationToolDefinitions,
  authorizationToolServer,
  prepareAuthorizationTool,
  prepareSignOutTool,
  runAuthorizationTool,
  runSignOutTool,
  signOutToolServer,
} from './mcp-oauth-tools.js';
import { McpOAuthVault, type McpAuthorizationEntry } from './mcp-oauth-vault.js';
import { createTokenCipher } from './mcp-token-cipher.js';
import {
  reconcileServers,
  reconnectServer,
  refreshServers,
  startServers,
  type McpReconcileResult,
  type McpRefreshOutcome,
} from './mcp-manager-operations.js';
import { syncPromptTemplates, type PromptSyncResult } from './mcp-prompt-sync.js';
import { invalidServerNameReason, type McpServerSpec } from './mcp-server-spec.js';
import { teardownServer } from './mcp-server-lifecycle.js';
import { buildMcpStatus, type McpServerStatus, type McpStatus } from './mcp-status.js';
import { buildMcpSystemPromptSection } from './mcp-system-prompt.js';
import {
  DEFAULT_BUILTIN_SCHEMAS,
  catalogHasTool,
  executeMcpCall,
  listMcpToolDefinitions,
  prepareMcpCall,
  type McpBuiltinSchemas,
} from './mcp-tool-source.js';

export interface McpManagerOptions {
  /** Merged server definitions (see mergeMcpServerConfigs). */
  servers: readonly McpServerSpec[];
  /** The gateway's environment (processEnvironment()); scrubbed before it reaches stdio children. */
  parentEnv: Readonly<Record<string, string | undefined>>;
  logger?: Logger;
  /** Enables the prompt-governance sync into `prompt_templates`. */
  promptTemplates?: PromptTemplateStore;
  /** Schemas of read_resource / use_prompt (e.g. loaded from tools/*.json). */
  builtinSchemas?: McpBuiltinSchemas;
  clientVersion?: string;
  /** Per connect step (spawn/probe + initialize); default 30 s. */
  connectTimeoutMs?: number;
  /** Per list call during discovery/refresh; default 30 s. */
  listTimeoutMs?: number;
  /** How long start() waits for the initial connects; default 30 s (they continue in the background). */
  startWaitMs?: number;
  /** Push-refresh debounce per server and list kind; default 5 s. */
  debounceMs?: number;
  /** Elicitations not answered in time are declined; default 120 s. */
  elicitationTimeoutMs?: number;
  breaker?: CircuitBreakerOptions;
  /** Monotonic clock (ms) for the debounce; the breaker takes its own via `breaker.now`. */
  now?: () => number;
  /** Sandbox for servers with `sandbox = true` (absent: such servers refuse to start). */
  sandbox?: McpSandbox;
  /** Per-user OAuth for servers with `auth = "oauth"` (docs/design/mcp-oauth.md). */
  oauth?: McpOAuthOptions;
}

export interface McpOAuthOptions {
  credentials: McpCredentialStore;
  /** Pending authorizations, shared by the instances (the callback may land on any of them). */
  states: McpOAuthStateStore;
  /** How often a waiting call reads its pending authorization's row (another instance's callback); default 1 s. */
  pollMs?: number;
  /** `mcp.token_key` / SANDPIPER_MCP_TOKEN_KEY, and `mcp.token_key_previous`. */
  tokenKey: string | undefined;
  previousTokenKeys?: readonly string[];
  /** `gateway.public_url`; the redirect URI is exactly `<public_url>/v1/oauth/callback`. */
  publicUrl: string;
  /** How long a call waits for its caller's authorization; default 300 s. */
  authorizationTimeoutMs?: number;
  /** Who a workstream's calls act for (its owner). */
  callerOf(workstreamId: string): Promise<McpCaller | undefined>;
}

/** `<public_url>/v1/oauth/callback`, whatever trailing slash `public_url` has. */
export function oauthRedirectUrl(publicUrl: string): string {
  return `${publicUrl.replace(/\/+$/, '')}/v1/oauth/callback`;
}

/** The MCP manager; as a ToolSource it is read per model call, so catalog changes reach running workstreams. */
export interface McpManager extends ToolSource {
  /** Connects every server in parallel; resolves when all finished or after `startWaitMs` (connects continue). */
  start(signal?: AbortSignal): Promise<void>;
  /** Closes every session and kills stdio process groups; idempotent. */
  shutdown(): Promise<void>;
  /** Re-lists one or all servers (reconnecting disconnected ones); per-server failures are in the outcomes. */
  refresh(serverName?: string, signal?: AbortSignal): Promise<Record<string, McpRefreshOutcome>>;
  /** Clears the breaker and reconnects one server; on failure its catalog is dropped. */
  reconnect(serverName: string, signal?: AbortSignal): Promise<McpServerStatus>;
  /** Applies a new server set: connects new, disconnects removed, reconnects changed definitions. */
  reconcile(servers: readonly McpServerSpec[], signal?: AbortSignal): Promise<McpReconcileResult>;
  /** Counts for /health plus per-server state. */
  status(): McpStatus;
  /** Resource and prompt catalogs for the system message ('' when none). */
  systemPromptSection(): string;
  /** The current immutable catalog snapshot. */
  catalog(): McpCatalog;
  /** Called synchronously after each catalog or connection change; returns an unsubscribe function. */
  onChange(listener: (kind: McpChangeKind) => void): () => void;
  /** Sets the handler that turns elicitation requests into channel forms; returns an unsubscribe function. */
  onElicitation(handler: McpElicitationHandler): () => void;
  /** Runs the prompt-template sync now (it also runs after every prompt change). */
  syncPromptTemplates(): Promise<PromptSyncResult>;
  /** Sets the handler that sends users their private authorization links; returns an unsubscribe function. */
  onAuthorization(handler: McpAuthorizationHandler): () => void;
  /** The OAuth callback: 4xx for an unknown, used, expired or foreign `state`. */
  completeAuthorization(state: string, code: string): Promise<McpAuthorizationOutcome>;
  /** The callback said `error=` (the user declined): spends the state and stops that user's waiting calls. */
  declineAuthorization(state: string): Promise<void>;
  /** Cancel on a waiting card: ends that wait (a tool error) when it is `userId`'s (any user's without). */
  cancelAuthorization(waitId: string, userId: string | undefined): Promise<boolean>;
  /** Stored authorizations (no secrets). */
  listAuthorizations(filter: { server?: string; userId?: string }): Promise<McpAuthorizationEntry[]>;
  /** Forgets tokens (and closes the sessions using them); returns how many went. */
  revokeAuthorizations(server: string | undefined, userId: string | undefined): Promise<number>;
  /** Re-encrypts credentials written with an earlier `mcp.token_key`; returns how many changed. */
  rekeyAuthorizations(): Promise<number>;
  /** An operator authorizes `server` as `userId` ahead of time: the sign-in link, or `authorized` when a token works. */
  startLogin(server: string, userId: string, signal: AbortSignal): Promise<{ authorized: true } | { url: string }>;
}

export function createMcpManager(options: McpManagerOptions): McpManager {
  const now = options.now ?? (() => performance.now());
  const context: ManagerContext = {
    settings: {
      logger: options.logger ?? createSilentLogger(),
      parentEnv: options.parentEnv,
      clientVersion: options.clientVersion ?? '0.1.0',
      connectTimeoutMs: options.connectTimeoutMs ?? 30_000,
      listTimeoutMs: options.listTimeoutMs ?? 30_000,
      startWaitMs: options.startWaitMs ?? 30_000,
      debounceMs: options.debounceMs ?? 5_000,
      elicitationTimeoutMs: options.elicitationTimeoutMs ?? 120_000,
      now,
      promptTemplates: options.promptTemplates,
      sandbox: options.sandbox,
    },
    servers: new Map(validSpecs(options.servers, options.logger).map((spec) => [spec.name, createServerState(spec)])),
    breaker: new CircuitBreaker(options.breaker),
    catalog: EMPTY_CATALOG,
    listeners: new Set(),
    elicitationHandler: undefined,
    tasks: new Set(),
    syncMutex: new AsyncMutex(),
    isShutdown: false,
    ...(options.oauth ? { oauth: oauthRuntime(options.oauth, options.logger) } : {}),
  };
  const schemas = options.builtinSchemas ?? DEFAULT_BUILTIN_SCHEMAS;
  return {
    ...toolSourceMethods(context, schemas),
    start: (signal) => startServers(context, signal),
    shutdown: () => shutdownManager(context),
    refresh: (serverName, signal) => {
      if (serverName !== undefined && !context.servers.has(serverName)) {
        const known = [...context.servers.keys()].sort().join(', ') || '(none)';
        return Promise.reject(
          new GatewayError('NOT_FOUND', `Unknown MCP server: ${serverName.slice(0, 64)}. Known servers: ${known}`),
        );
      }
      return refreshServers(context, serverName, signal);
    },
    reconnect: (serverName, signal) => reconnectServer(context, serverName, signal),
    reconcile: (servers, signal) => reconcileServers(context, validSpecs(servers, context.settings.logger), signal),
    status: () => buildMcpStatus(context),
    systemPromptSection: () =>
      [buildMcpSystemPromptSection(context.catalog), authorizationPromptSection(context)].filter(Boolean).join('\n\n'),
    catalog: () => context.catalog,
    onChange: (listener) => {
      context.listeners.add(listener);
      return () => context.listeners.delete(listener);
    },
    onElicitation: (handler) => {
      context.elicitationHandler = handler;
      return () => {
        if (context.elicitationHandler === handler) context.elicitationHandler = undefined;
      };
    },
    syncPromptTemplates: () => syncPromptTemplates(context),
    ...oauthMethods(context),
  };
}

/** The ToolSource side: catalog tools plus the `authorize` tools of OAuth servers still waiting for a first user. */
function toolSourceMethods(context: ManagerContext, schemas: McpBuiltinSchemas): ToolSource {
  return {
    listTools: (): Promise<ToolDefinition[]> =>
      Promise.resolve([...listMcpToolDefinitions(context.catalog, schemas), ...authorizationToolDefinitions(context)]),
    hasTool: (name) =>
      catalogHasTool(context.catalog, name) ||
      authorizationToolServer(context, name) !== undefined ||
      signOutToolServer(context, name) !== undefined,
    prepare: (name, args): Promise<ToolPreparation> => Promise.resolve(prepareCall(context, name, args)),
    callTool: (name, args, toolContext: ToolContext): Promise<ToolResult> => {
      const isCatalog = catalogHasTool(context.catalog, name);
      const authorize = isCatalog ? undefined : authorizationToolServer(context, name);
      const signOut = isCatalog ? undefined : signOutToolServer(context, name);
      if (authorize !== undefined)
        return executeMcpCall(context, name, args, toolContext, () =>
          runAuthorizationTool(context, authorize, toolContext),
        );
      if (signOut !== undefined)
        return executeMcpCall(context, name, args, toolContext, () => runSignOutTool(context, signOut, toolContext));
      return executeMcpCall(context, name, args, toolContext);
    },
  };
}

function oauthMethods(
  context: ManagerContext,
): Pick<
  McpManager,
  | 'onAuthorization'
  | 'completeAuthorization'
  | 'declineAuthorization'
  | 'cancelAuthorization'
  | 'startLogin'
  | 'listAuthorizations'
  | 'revokeAuthorizations'
  | 'rekeyAuthorizations'
> {
  return {
    onAuthorization: (handler) => {
      const runtime = context.oauth;
      if (!runtime) return () => undefined;
      runtime.handler = handler;
      return () => {
        if (runtime.handler === handler) runtime.handler = undefined;
      };
    },
    completeAuthorization: (state, code) => completeAuthorization(context, state, code),
    declineAuthorization: (state) => declineAuthorization(context, state),
    cancelAuthorization: async (waitId, userId) =>
      (await context.oauth?.states.settle(waitId, 'cancelled', userId === undefined ? {} : { userId })) ?? false,
    listAuthorizations: (filter) => requireOAuth(context).vault.list(filter),
    revokeAuthorizations: (server, userId) => revokeAuthorizations(context, server, userId),
    rekeyAuthorizations: () => requireOAuth(context).vault.rekey(),
    startLogin: (server, userId, signal) => startLogin(context, server, userId, signal),
  };
}

function oauthRuntime(options: McpOAuthOptions, logger: Logger | undefined): McpOAuthRuntime {
  const timeoutMs = options.authorizationTimeoutMs ?? 300_000;
  const vault = new McpOAuthVault(options.credentials, createTokenCipher(options.tokenKey, options.previousTokenKeys));
  return {
    vault,
    states: new AuthorizationStates({
      store: options.states,
      vault,
      ttlMs: timeoutMs,
      pollMs: options.pollMs ?? 1_000,
      ...(logger ? { logger } : {}),
    }),
    redirectUrl: oauthRedirectUrl(options.publicUrl),
    timeoutMs,
    callerOf: options.callerOf,
    handler: undefined,
  };
}

function requireOAuth(context: ManagerContext): McpOAuthRuntime {
  if (!context.oauth)
    throw new GatewayError(
      'USAGE',
      'MCP OAuth is not configured: set mcp.token_key (or SANDPIPER_MCP_TOKEN_KEY) and gateway.public_url',
    );
  return context.oauth;
}

/** OAuth servers' calls wait for people (a sign-in), so only cancel and the request's own time-out bound them. */
function prepareCall(context: ManagerContext, name: string, args: Record<string, unknown>): ToolPreparation {
  const isCatalog = catalogHasTool(context.catalog, name);
  const authorizeFor = isCatalog ? undefined : authorizationToolServer(context, name);
  if (authorizeFor !== undefined) return prepareAuthorizationTool(authorizeFor);
  const signOutOf = isCatalog ? undefined : signOutToolServer(context, name);
  if (signOutOf !== undefined) return prepareSignOutTool(signOutOf);
  const preparation = prepareMcpCall(context.catalog, name, args);
  const server = context.catalog.toolMap.get(name)?.server;
  return server !== undefined && context.servers.get(server)?.spec.oauth
    ? { ...preparation, untimed: true }
    : preparation;
}

/** Drops definitions whose name cannot form tool names (`__`, odd characters); the others still connect. */
function validSpecs(specs: readonly McpServerSpec[], logger: Logger | undefined): McpServerSpec[] {
  return specs.filter((spec) => {
    const reason = invalidServerNameReason(spec.name);
    if (reason !== undefined) logger?.error({ server: spec.name.slice(0, 64), reason }, 'MCP server skipped');
    return reason === undefined;
  });
}

async function shutdownManager(context: ManagerContext): Promise<void> {
  if (context.isShutdown) return;
  context.isShutdown = true;
  const closing = Promise.allSettled([...context.servers.values()].map((state) => teardownServer(state)));
  await settleWithin(closing, 10_000);
  await settleWithin(Promise.allSettled([...context.tasks]), 5_000);
  context.catalog = EMPTY_CATALOG;
  context.listeners.clear();
  context.elicitationHandler = undefined;
  context.settings.logger.info('MCP manager shut down');
}

function settleWithin(work: Promise<unknown>, ms: number): Promise<void> {
  return new Promise((resolve) => {
    // Purpose: timeout (how long shutdown waits for the work).
    const timer = setTimeout(resolve, ms);
    timer.unref();
    void work.finally(() => {
      clearTimeout(timer);
      resolve();
    });
  });
}
