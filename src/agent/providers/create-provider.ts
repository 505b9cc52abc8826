/** Builds the ModelProvider for one `[models.<alias>]` config entry. */
import type { ModelConfig } from '../../config/config-schema.js';
import { ConfigError } from '../../shared/errors.js';
import { createAnthropicProvider } from './anthropic/anthropic-provider.js';
import type { ModelCapabilities, ModelProvider } from './model-provider.js';
import { createOpenAIProvider } from './openai/openai-provider.js';

export interface CreateProviderOptions {
  /** Alias of the model entry, used in configuration error messages. */
  alias?: string;
  /** Custom fetch (tests, proxies). */
  fetch?: typeof fetch;
}

/** Key sent to OpenAI-compatible local servers (vLLM, llama.cpp) that need none. */
export const NO_API_KEY = 'sk-no-key-required';

/** Capabilities of the configured model from its config entry. */
export function capabilitiesFromConfig(config: ModelConfig): ModelCapabilities {
  return { contextWindow: config.context_window, maxOutputTokens: config.max_tokens, supportsVision: config.supports_vision };
}

/**
 * Creates the provider for `config`. The configured model name gets the capabilities of the entry;
 * other names (prefix matches such as `<model>-2025…`) get the same. Throws `ConfigError` when an
 * Anthropic entry has no API key (OpenAI-compatible servers may run without one).
 */
export function createProvider(config: ModelConfig, options: CreateProviderOptions = {}): ModelProvider {
  const models = { [config.model]: capabilitiesFromConfig(config) };
  const shared = {
    models,
    ...(config.base_url === undefined ? {} : { baseUrl: config.base_url }),
    ...(options.fetch === undefined ? {} : { fetch: options.fetch }),
  };
  const apiKey = config.api_key !== undefined && config.api_key !== '' ? config.api_key : undefined;
  if (config.provider === 'anthropic') {
    if (apiKey === undefined) {
      throw new ConfigError([`models.${options.alias ?? '<alias>'}.api_key: required for provider "anthropic" (or set ANTHROPIC_API_KEY)`]);
    }
    return createAnthropicProvider({ apiKey, ...shared });
  }
  return createOpenAIProvider({ apiKey: apiKey ?? NO_API_KEY, ...shared });
}
