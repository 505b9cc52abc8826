/** Composition of the agent core: providers per model alias, tool sources, and the workstream manager. */
import type { Config } from './config/index.js';
import { instrumentProvider } from './agent/agent-telemetry.js';
import { createProvider, preloadProviders } from './agent/providers/create-provider.js';
import type { ModelProvider } from './agent/providers/model-provider.js';
import { resolveSupportsVision } from './agent/providers/vision-models.js';
import { resolveNativeTools } from './agent/providers/native-tools.js';
import { createMemoryNudgeSection } from './agent/memory/memory-nudges.js';
import { createMemorySection } from './agent/memory/memory-section.js';
import { createTokenBudget, type TokenBudget } from './agent/token-budget.js';
import type { SystemPromptSection } from './agent/system-prompt.js';
import { createBuiltinToolSource, type ToolContainment } from './agent/tools/index.js';
import { prepareContainment } from './main-containment.js';
import type { ToolDefinition, ToolSource } from './agent/tools/tool.js';
import type { StreamModel, TurnModel } from './agent/turn/turn-types.js';
import { createWorkstreamManager, type DefaultWorkstreamManager } from './agent/workstream-manager.js';
import type { McpManager } from './agent/mcp/mcp-manager.js';
import { loadToolDefinitions } from './agent/tools/index.js';
import { createConfiguredMcpManager } from './main-mcp.js';
import { createServiceTokenSource } from './gateway/http/auth.js';
import type { Logger } from './shared/logger.js';
import type { Stores } from './storage/stores.js';

export interface AgentRuntimeExtras {
  /** More tool sources after the built-ins (the MCP manager). */
  toolSources?: readonly ToolSource[];
  /** Extra system-message sections (MCP catalogs, memories). */
  systemPromptSections?: readonly SystemPromptSection[];
  /** Providers by alias, instead of building them from `[models]` (tests). */
  providers?: Readonly<Record<string, ModelProvider>>;
  /** Replaces the retrying stream (tests, benchmarks). */
  streamModel?: StreamModel;
  /** Replaces the built-in tool source (tests). */
  builtinTools?: ToolSource;
  /** Already-loaded `tools/*.json` definitions, so start-up reads them once (default: load them). */
  toolDefinitions?: readonly ToolDefinition[];
  /** Detected sandbox and protected paths (default: detected here from `tools.sandbox`). */
  containment?: ToolContainment;
  /** Pauses between notify attempts (default 1 s, 3 s; tests shorten them). */
  notifyRetryDelaysMs?: readonly number[];
  /** Run `evictIdle` on this interval; 0 disables (default 60 s). */
  evictIntervalMs?: number;
  /** The HTTP server's real port (when `gateway.http_port` is 0): the tools' egress proxy refuses it. */
  httpPort?: number;
}

export interface AgentRuntime {
  manager: DefaultWorkstreamManager;
  /** Built-ins first, then the extras. */
  toolSources: readonly ToolSource[];
  /** Stops eviction and every workstream (pending approvals stay resumable). */
  close(): Promise<void>;
}

/**
 * The model behind an alias, made on first use and kept: each alias's provider is built once, and its model is not
 * derived again at every turn (the vision-family match is a dozen regular expressions).
 */
export function createModelResolver(
  config: Config,
  providers?: Readonly<Record<string, ModelProvider>>,
): (alias: string) => TurnModel | undefined {
  const models = new Map<string, { entry: NonNullable<Config['models'][string]>; model: Readonly<TurnModel> }>();
  const resolve = (alias: string): TurnModel | undefined => {
    const entry = config.models[alias];
    if (entry === undefined) return undefined;
    const known = models.get(alias);
    if (known?.entry === entry) return known.model;
    const model: TurnModel = {
      // Every model call becomes a span and feeds the model latency and token metrics.
      provider:
        known?.model.provider ?? instrumentProvider(providers?.[alias] ?? createProvider(entry, { alias }), alias),
      model: entry.model,
      contextWindow: entry.context_window,
      maxTokens: entry.max_tokens,
      supportsVision: resolveSupportsVision(entry),
      native: resolveNativeTools(entry),
      alias,
    };
    if (entry.temperature !== undefined) model.temperature = entry.temperature;
    const fallbackAlias = entry.fallback;
    // One hop: the fallback answers without a fallback of its own.
    if (fallbackAlias !== undefined) model.fallback = () => withoutFallback(resolve(fallbackAlias));
    models.set(alias, { entry, model });
    return model;
  };
  return resolve;
}

function withoutFallback(model: TurnModel | undefined): TurnModel | undefined {
  if (model?.fallback === undefined) return model;
  const { fallback: _ignored, ...rest } = model;
  return rest;
}

/** The daily token budgets, when `[budgets]` sets any. */
function budgetOption(config: Config, stores: Stores): { budget?: TokenBudget } {
  const {
    user_daily_tokens: userDailyTokens,
    users,
    channel_daily_tokens: channelDailyTokens,
    channels,
  } = config.budgets;
  const budget = createTokenBudget({ userDailyTokens, users, channelDailyTokens, channels }, stores);
  return budget === undefined ? {} : { budget };
}

/** The memory nudges (last in the system message), unless `memory.nudges` is off. */
function nudgeSections(config: Config, stores: Stores): SystemPromptSection[] {
  if (!config.memory.nudges) return [];
  return [createMemoryNudgeSection({ memories: stores.memories, cooldownMs: config.memory.nudge_cooldown_s * 1000 })];
}

/** `Bearer <service token>` for the notify tool's calls to channel gateways (none without auth.jwt_secret). */
function notifyAuthorization(config: Config): () => Promise<string | undefined> {
  const token = createServiceTokenSource(
    { secret: config.auth.jwt_secret, audience: config.auth.jwt_audience },
    { scopes: ['write'], ttlSeconds: 300 },
  );
  return async () => {
    const minted = await token();
    return minted === undefined ? undefined : `Bearer ${minted}`;
  };
}

export async function createAgentRuntime(
  config: Config,
  stores: Stores,
  logger: Logger,
  extras: AgentRuntimeExtras = {},
): Promise<AgentRuntime> {
  const builtin =
    extras.builtinTools ??
    (await createBuiltinToolSource({
      containment: await containmentFor(config, logger, extras),
      ...(config.tools.tavily_api_key === undefined ? {} : { tavilyApiKey: config.tools.tavily_api_key }),
      ...(extras.toolDefinitions === undefined ? {} : { definitions: extras.toolDefinitions }),
      ...(extras.notifyRetryDelaysMs === undefined ? {} : { notifyRetryDelaysMs: extras.notifyRetryDelaysMs }),
      stores,
      memoryMaxContent: config.memory.max_content,
      notifyAuthorization: notifyAuthorization(config),
    }));
  const memorySection = createMemorySection({
    memories: stores.memories,
    relevanceK: config.memory.relevance_k,
    fetchLimit: config.memory.fetch_limit,
  });
  const toolSources = [builtin, ...(extras.toolSources ?? [])];
  // Only the SDKs of configured providers load, and before the first message rather than during it.
  if (extras.providers === undefined) await preloadProviders(Object.values(config.models));
  const manager = createWorkstreamManager({
    agent: config.agent,
    stores,
    resolveModel: createModelResolver(config, extras.providers),
    defaultModelAlias: config.agent.default_model ?? Object.keys(config.models)[0] ?? '',
    toolSources,
    toolSearch: {
      mode: config.tools.search,
      threshold: config.tools.search_threshold,
      maxResults: config.tools.search_max_results,
    },
    logger: logger.child({ component: 'agent' }),
    ...(extras.streamModel === undefined ? {} : { streamModel: extras.streamModel }),
    systemPromptSections: [...(extras.systemPromptSections ?? []), memorySection, ...nudgeSections(config, stores)],
    ...budgetOption(config, stores),
  });
  const intervalMs = extras.evictIntervalMs ?? 60_000;
  // Purpose: cadence (idle workstreams are evicted).
  const timer =
    intervalMs > 0
      ? setInterval(() => {
          void manager.evictIdle().catch((error: unknown) => logger.error({ err: error }, 'idle eviction failed'));
        }, intervalMs)
      : undefined;
  timer?.unref();
  let closed = false;
  return {
    manager,
    toolSources,
    close: async () => {
      if (closed) return;
      closed = true;
      if (timer !== undefined) clearInterval(timer);
      await manager.shutdown();
    },
  };
}

/** The caller's containment, or one detected now (tests and benchmarks that build a runtime directly). */
function containmentFor(config: Config, logger: Logger, extras: AgentRuntimeExtras): Promise<ToolContainment> {
  return extras.containment === undefined ? prepareContainment(config, logger) : Promise.resolve(extras.containment);
}

/** The whole agent side as `start` and `chat` both run it: tool definitions read once, MCP, runtime. */
export interface AssembledAgent {
  runtime: AgentRuntime;
  mcp: McpManager;
  /** The detected sandbox and protected paths every tool and sandboxed MCP server runs under. */
  containment: ToolContainment;
  /** Stops the runtime, then the MCP servers. */
  close(): Promise<void>;
}

export interface AssembleOptions {
  /** `background` (start: a slow server never delays the channels) or `await` (chat: tools there from the first question). */
  connectMcp: 'background' | 'await';
  signal: AbortSignal;
  /** Run `evictIdle` on this interval; 0 disables (default 60 s). */
  evictIntervalMs?: number;
  /** The HTTP server's real port (when `gateway.http_port` is 0): the tools' egress proxy refuses it. */
  httpPort?: number;
}

/** One assembly of the agent runtime for every entry point (ADR: start and chat never drift apart again). */
export async function assembleAgent(
  config: Config,
  stores: Stores,
  logger: Logger,
  options: AssembleOptions,
): Promise<AssembledAgent> {
  // tools/*.json is read once and shared by the built-in tool source and the MCP manager.
  const toolDefinitions = (await loadToolDefinitions()).all;
  // The sandbox is detected once; `tools.sandbox = "bwrap"` without a working bubblewrap stops the start here.
  const containment = await prepareContainment(config, logger, {
    signal: options.signal,
    ...(options.httpPort === undefined ? {} : { httpPort: options.httpPort }),
  });
  const mcp = await createConfiguredMcpManager(config, stores, logger, toolDefinitions, containment.sandbox);
  const started = mcp.start(options.signal);
  if (options.connectMcp === 'await') await started;
  else void started.catch((error: unknown) => logger.error({ err: error }, 'MCP start failed'));
  let runtime: AgentRuntime;
  try {
    runtime = await createAgentRuntime(config, stores, logger, {
      toolSources: [mcp],
      systemPromptSections: [() => mcp.systemPromptSection()],
      toolDefinitions,
      containment,
      ...(options.evictIntervalMs === undefined ? {} : { evictIntervalMs: options.evictIntervalMs }),
    });
  } catch (error) {
    await mcp.shutdown();
    throw error;
  }
  return {
    runtime,
    mcp,
    containment,
    close: async () => {
      try {
        await runtime.close();
      } finally {
        await mcp.shutdown();
      }
    },
  };
}
