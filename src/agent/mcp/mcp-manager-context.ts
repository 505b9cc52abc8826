/** Shared mutable state of one MCP manager, handed to the concern files (lifecycle, dispatch, tool source, sync). */
import type { Logger } from '../../shared/logger.js';
import type { PromptTemplateStore } from '../../storage/prompt-template-store.js';
import { AsyncMutex } from './async-mutex.js';
import type { McpSandbox } from './mcp-sandbox.js';
import type { CircuitBreaker } from './circuit-breaker.js';
import type { McpCatalog, ServerCatalog } from './mcp-catalog.js';
import type { McpConnection } from './mcp-connection.js';
import type { McpOAuthVault } from './mcp-oauth-vault.js';
import type { AuthorizationStates } from './mcp-oauth-states.js';
import type { McpServerSpec } from './mcp-server-spec.js';
import type { McpElicitationAnswer, McpListKind } from './mcp-types.js';

/** An elicitation request as channels see it: render `requestedSchema` as a form, answer within the timeout. */
export interface McpElicitationRequest {
  id: string;
  server: string;
  message: string;
  requestedSchema: Record<string, unknown>;
  /** Workstreams with a call to this server in flight (usually the one that triggered the request). */
  workstreamIds: string[];
  /** When the request is declined automatically. */
  expiresAt: string;
}

export type McpElicitationHandler = (
  request: McpElicitationRequest,
  signal: AbortSignal,
) => Promise<McpElicitationAnswer>;

export type McpChangeKind = McpListKind | 'servers';

/** Who a call acts for: the conversation owner (sub-agents and watches of a conversation act for its owner too). */
export interface McpCaller {
  userId: string;
  conversationId: string;
}

/** A user must authorize an OAuth server: send them `url` privately and show the waiting call in the conversation. */
export interface McpAuthorizationRequest {
  server: string;
  userId: string;
  /** '' when an operator starts it (`sandpiper mcp auth login`). */
  conversationId: string;
  url: string;
  expiresAt: string;
  /** Names this wait for a Cancel control (`McpManager.cancelAuthorization`); the SHA-256 of its state. */
  waitId: string;
}

/** How a wait for an authorization ended: the `reason` its handler's signal aborts with. */
export type McpAuthorizationEnd = 'authorized' | 'declined' | 'cancelled' | 'failed' | 'expired' | 'stopped';

/**
 * Delivers the link and shows the wait; rejects when it cannot reach the user. It may stay pending until `signal`
 * aborts (the wait ended, `signal.reason` an `McpAuthorizationEnd`), so it can update what it showed.
 */
export type McpAuthorizationHandler = (request: McpAuthorizationRequest, signal: AbortSignal) => Promise<void>;

export interface McpOAuthRuntime {
  vault: McpOAuthVault;
  states: AuthorizationStates;
  redirectUrl: string;
  timeoutMs: number;
  callerOf(workstreamId: string): Promise<McpCaller | undefined>;
  handler: McpAuthorizationHandler | undefined;
}

export interface ServerState {
  spec: McpServerSpec;
  connection: McpConnection | undefined;
  catalog: ServerCatalog;
  /** Prompts were listed successfully at least once on the current definition (prompt sync may delete its rows). */
  hasListedPrompts: boolean;
  lastError: string;
  readonly mutex: AsyncMutex;
  readonly debounceTimers: Map<McpListKind, NodeJS.Timeout>;
  readonly lastRefreshAt: Map<McpListKind, number>;
  /** Bumped on every (re)connect so callbacks of an old connection are ignored. */
  generation: number;
  /** Workstream id → number of calls in flight. */
  readonly inFlight: Map<string, number>;
  /** OAuth servers: each user's own session (calls carry the caller's token, never another's). */
  readonly userConnections: Map<string, McpConnection>;
  readonly userMutexes: Map<string, AsyncMutex>;
  /** OAuth server whose tools are unknown until someone authorizes. */
  needsAuthorization: boolean;
}

export interface ManagerSettings {
  logger: Logger;
  parentEnv: Readonly<Record<string, string | undefined>>;
  clientVersion: string;
  connectTimeoutMs: number;
  listTimeoutMs: number;
  startWaitMs: number;
  debounceMs: number;
  elicitationTimeoutMs: number;
  now: () => number;
  promptTemplates: PromptTemplateStore | undefined;
  sandbox?: McpSandbox | undefined;
}

export interface ManagerContext {
  readonly settings: ManagerSettings;
  readonly servers: Map<string, ServerState>;
  readonly breaker: CircuitBreaker;
  catalog: McpCatalog;
  readonly listeners: Set<(kind: McpChangeKind) => void>;
  elicitationHandler: McpElicitationHandler | undefined;
  /** Background work (push refreshes, syncs, start-up connects), drained on shutdown. */
  readonly tasks: Set<Promise<unknown>>;
  readonly syncMutex: AsyncMutex;
  isShutdown: boolean;
  /** Per-user OAuth (servers with `auth = "oauth"`); absent when not configured. */
  oauth?: McpOAuthRuntime;
}

export function emptyServerCatalog(): ServerCatalog {
  return { tools: [], resources: [], templates: [], prompts: [] };
}

export function createServerState(spec: McpServerSpec): ServerState {
  return {
    spec,
    connection: undefined,
    catalog: emptyServerCatalog(),
    hasListedPrompts: false,
    lastError: '',
    mutex: new AsyncMutex(),
    debounceTimers: new Map(),
    lastRefreshAt: new Map(),
    generation: 0,
    inFlight: new Map(),
    userConnections: new Map(),
    userMutexes: new Map(),
    needsAuthorization: false,
  };
}

/** Error text for status: one line, at most 256 characters. */
export function sanitizeErrorText(text: string): string {
  return text.replace(/\r/g, '').replace(/\n/g, ' ').slice(0, 256);
}

/** The message of a thrown value (errors' own message, anything else as a string). */
export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** Status text for a failure: `prefix: message`, sanitized like `sanitizeErrorText`. */
export function failureText(prefix: string, error: unknown): string {
  return sanitizeErrorText(`${prefix}: ${errorMessage(error)}`);
}

/** Keeps a background promise referenced until it settles; failures are logged, never unhandled. */
export function track(context: ManagerContext, work: Promise<unknown>, what: string): void {
  const tracked = work.catch((error: unknown) => {
    context.settings.logger.warn({ err: errorMessage(error) }, `MCP background ${what} failed`);
  });
  context.tasks.add(tracked);
  void tracked.finally(() => context.tasks.delete(tracked));
}

export function notifyListeners(context: ManagerContext, kind: McpChangeKind): void {
  for (const listener of [...context.listeners]) {
    try {
      listener(kind);
    } catch (error) {
      context.settings.logger.warn({ err: errorMessage(error) }, 'MCP change listener threw');
    }
  }
}
