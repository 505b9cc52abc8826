/**
 * Builds the ModelProvider for one `[models.<alias>]` config entry. The vendor SDK (openai, @anthropic-ai/sdk) is
 * imported on demand: only a configured provider's SDK is ever loaded (`preloadProviders` at start-up, or the first
 * model call), so start-up never pays for an SDK nobody uses.
 */
import type { ModelConfig } from '../../config/config-schema.js';
import { ConfigError } from '../../shared/errors.js';
import {
  ANTHROPIC_DEFAULT_CAPABILITIES,
  OPENAI_DEFAULT_CAPABILITIES,
  createCapabilityLookup,
} from './capability-lookup.js';
import type { ModelCapabilities, ModelProvider, ModelRequest, ModelStreamPart } from './model-provider.js';
import { DEFAULT_STREAM_TIMEOUTS, type StreamTimeouts } from './stream-watchdog.js';
import { resolveSupportsVision } from './vision-models.js';

export interface CreateProviderOptions {
  /** Alias of the model entry, used in configuration error messages. */
  alias?: string;
  /** Custom fetch (tests, proxies). */
  fetch?: typeof fetch;
}

/** Key sent to OpenAI-compatible local servers (vLLM, llama.cpp) that need none. */
export const NO_API_KEY = 'sk-no-key-required';

type ProviderKind = ModelConfig['provider'];

interface ProviderSettings {
  apiKey: string;
  models: Record<string, ModelCapabilities>;
  baseUrl?: string;
  timeouts: StreamTimeouts;
  fetch?: typeof fetch;
}

/** The SDK-backed factory of a provider kind; the module (and its SDK) is imported once, on first need. */
const loaders: Record<ProviderKind, () => Promise<(settings: ProviderSettings) => ModelProvider>> = {
  openai: async () => (await import('./openai/openai-provider.js')).createOpenAIProvider,
  anthropic: async () => (await import('./anthropic/anthropic-provider.js')).createAnthropicProvider,
};
const loaded = new Map<ProviderKind, Promise<(settings: ProviderSettings) => ModelProvider>>();

function factoryOf(kind: ProviderKind): Promise<(settings: ProviderSettings) => ModelProvider> {
  let factory = loaded.get(kind);
  if (factory === undefined) {
    factory = loaders[kind]();
    loaded.set(kind, factory);
    // A failed import is retried by the next caller instead of being remembered.
    factory.catch(() => loaded.delete(kind));
  }
  return factory;
}

/** Imports the SDKs of the configured providers (start-up), so the first model call does not wait for them. */
export async function preloadProviders(configs: Iterable<ModelConfig>): Promise<void> {
  const kinds = new Set([...configs].map((config) => config.provider));
  await Promise.all([...kinds].map((kind) => factoryOf(kind)));
}

/** Capabilities of the configured model from its config entry. */
export function capabilitiesFromConfig(config: ModelEntry): ModelCapabilities {
  return {
    contextWindow: config.context_window,
    maxOutputTokens: config.max_tokens,
    supportsVision: resolveSupportsVision(config),
  };
}

/** A provider whose SDK-backed implementation is built on the first stream. */
class OnDemandProvider implements ModelProvider {
  readonly capabilities: (model: string) => ModelCapabilities;
  #provider: ModelProvider | undefined;

  constructor(
    readonly id: ProviderKind,
    private readonly settings: ProviderSettings,
  ) {
    this.capabilities = createCapabilityLookup(
      settings.models,
      id === 'anthropic' ? ANTHROPIC_DEFAULT_CAPABILITIES : OPENAI_DEFAULT_CAPABILITIES,
    );
  }

  async *stream(request: ModelRequest, options: { signal: AbortSignal }): AsyncIterable<ModelStreamPart> {
    this.#provider ??= (await factoryOf(this.id))(this.settings);
    yield* this.#provider.stream(request, options);
  }
}

/** A `[models.<alias>]` entry; the timeouts may be left out (programmatic use) and then get their defaults. */
type OptionalModelKeys = 'first_token_timeout_s' | 'stream_idle_timeout_s' | 'native_tool_search' | 'native_web_search';
export type ModelEntry = Omit<ModelConfig, OptionalModelKeys> & Partial<Pick<ModelConfig, OptionalModelKeys>>;

function timeoutsOf(config: ModelEntry): StreamTimeouts {
  return {
    firstTokenMs:
      config.first_token_timeout_s === undefined
        ? DEFAULT_STREAM_TIMEOUTS.firstTokenMs
        : config.first_token_timeout_s * 1000,
    idleMs:
      config.stream_idle_timeout_s === undefined ? DEFAULT_STREAM_TIMEOUTS.idleMs : config.stream_idle_timeout_s * 1000,
  };
}

/**
 * Creates the provider for `config`. The configured model name gets the capabilities of the entry;
 * other names (prefix matches such as `<model>-2025…`) get the same. Throws `ConfigError` when an
 * Anthropic entry has no API key (OpenAI-compatible servers may run without one).
 */
export function createProvider(config: ModelEntry, options: CreateProviderOptions = {}): ModelProvider {
  const apiKey = config.api_key !== undefined && config.api_key !== '' ? config.api_key : undefined;
  if (config.provider === 'anthropic' && apiKey === undefined) {
    throw new ConfigError([
      `models.${options.alias ?? '<alias>'}.api_key: required for provider "anthropic" (or set ANTHROPIC_API_KEY)`,
    ]);
  }
  const settings: ProviderSettings = {
    apiKey: apiKey ?? NO_API_KEY,
    models: { [config.model]: capabilitiesFromConfig(config) },
    timeouts: timeoutsOf(config),
    ...(config.base_url === undefined ? {} : { baseUrl: config.base_url }),
    ...(options.fetch === undefined ? {} : { fetch: options.fetch }),
  };
  return new OnDemandProvider(config.provider, settings);
}
