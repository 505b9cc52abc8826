/** Composition of the agent core: providers per model alias, tool sources, and the workstream manager. */
import type { Config } from './config/index.js';
import { createProvider, preloadProviders } from './agent/providers/create-provider.js';
import type { ModelProvider } from './agent/providers/model-provider.js';
import { createMemorySection } from './agent/memory/memory-section.js';
import type { SystemPromptSection } from './agent/system-prompt.js';
import { createBuiltinToolSource } from './agent/tools/index.js';
import type { ToolDefinition, ToolSource } from './agent/tools/tool.js';
import type { StreamModel, TurnModel } from './agent/turn/turn-types.js';
import { createWorkstreamManager, type DefaultWorkstreamManager } from './agent/workstream-manager.js';
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
  /** Pauses between notify attempts (default 1 s, 3 s; tests shorten them). */
  notifyRetryDelaysMs?: readonly number[];
  /** Run `evictIdle` on this interval; 0 disables (default 60 s). */
  evictIntervalMs?: number;
}

export interface AgentRuntime {
  manager: DefaultWorkstreamManager;
  /** Built-ins first, then the extras. */
  toolSources: readonly ToolSource[];
  /** Stops eviction and every workstream (pending approvals stay resumable). */
  close(): Promise<void>;
}

/** The model behind an alias; providers are built on first use and cached. */
export function createModelResolver(config: Config, providers?: Readonly<Record<string, ModelProvider>>): (alias: string) => TurnModel | undefined {
  const cache = new Map<string, ModelProvider>();
  return (alias) => {
    const entry = config.models[alias];
    if (entry === undefined) return undefined;
    let provider = providers?.[alias] ?? cache.get(alias);
    if (provider === undefined) {
      provider = createProvider(entry, { alias });
      cache.set(alias, provider);
    }
    const model: TurnModel = {
      provider,
      model: entry.model,
      contextWindow: entry.context_window,
      maxTokens: entry.max_tokens,
      supportsVision: entry.supports_vision,
    };
    if (entry.temperature !== undefined) model.temperature = entry.temperature;
    return model;
  };
}

/** `Bearer <service token>` for the notify tool's calls to channel gateways (none without auth.jwt_secret). */
function notifyAuthorization(config: Config): () => Promise<string | undefined> {
  const token = createServiceTokenSource({ secret: config.auth.jwt_secret, audience: config.auth.jwt_audience }, { scopes: ['write'], ttlSeconds: 300 });
  return async () => {
    const minted = await token();
    return minted === undefined ? undefined : `Bearer ${minted}`;
  };
}

export async function createAgentRuntime(config: Config, stores: Stores, logger: Logger, extras: AgentRuntimeExtras = {}): Promise<AgentRuntime> {
  const builtin =
    extras.builtinTools ??
    (await createBuiltinToolSource({
      ...(config.tools.tavily_api_key === undefined ? {} : { tavilyApiKey: config.tools.tavily_api_key }),
      ...(extras.toolDefinitions === undefined ? {} : { definitions: extras.toolDefinitions }),
      ...(extras.notifyRetryDelaysMs === undefined ? {} : { notifyRetryDelaysMs: extras.notifyRetryDelaysMs }),
      stores,
      memoryMaxContent: config.memory.max_content,
      notifyAuthorization: notifyAuthorization(config),
    }));
  const memorySection = createMemorySection({ memories: stores.memories, relevanceK: config.memory.relevance_k, fetchLimit: config.memory.fetch_limit });
  const toolSources = [builtin, ...(extras.toolSources ?? [])];
  // Only the SDKs of configured providers load, and before the first message rather than during it.
  if (extras.providers === undefined) await preloadProviders(Object.values(config.models));
  const manager = createWorkstreamManager({
    agent: config.agent,
    stores,
    resolveModel: createModelResolver(config, extras.providers),
    defaultModelAlias: config.agent.default_model ?? Object.keys(config.models)[0] ?? '',
    toolSources,
    toolSearch: { mode: config.tools.search, threshold: config.tools.search_threshold, maxResults: config.tools.search_max_results },
    logger: logger.child({ component: 'agent' }),
    ...(extras.streamModel === undefined ? {} : { streamModel: extras.streamModel }),
    systemPromptSections: [...(extras.systemPromptSections ?? []), memorySection],
  });
  const intervalMs = extras.evictIntervalMs ?? 60_000;
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
