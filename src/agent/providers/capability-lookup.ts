/** Resolves a model's static capabilities from a configured table (longest key/prefix match) or a function. */
import type { ModelCapabilities } from './model-provider.js';

/** What an unknown model of each provider is assumed to support (kept here so no SDK loads to answer it). */
export const OPENAI_DEFAULT_CAPABILITIES: ModelCapabilities = {
  contextWindow: 128000,
  maxOutputTokens: 8192,
  supportsVision: false,
};
export const ANTHROPIC_DEFAULT_CAPABILITIES: ModelCapabilities = {
  contextWindow: 200000,
  maxOutputTokens: 64000,
  supportsVision: true,
};

/** Capabilities per model name (partial entries fall back to the defaults), or a function of the model name. */
export type CapabilitySource =
  Readonly<Record<string, Partial<ModelCapabilities>>> | ((model: string) => ModelCapabilities);

/**
 * Builds the `capabilities(model)` function of a provider. A table key matches when the model equals it
 * or starts with `key-`; the longest matching key wins; unknown models get `defaults`.
 */
export function createCapabilityLookup(
  source: CapabilitySource | undefined,
  defaults: ModelCapabilities,
): (model: string) => ModelCapabilities {
  if (typeof source === 'function') return source;
  const table = source ?? {};
  return (model) => {
    let best: string | undefined;
    for (const key of Object.keys(table)) {
      const matches = model === key || model.startsWith(`${key}-`);
      if (matches && (best === undefined || key.length > best.length)) best = key;
    }
    const entry = best === undefined ? undefined : table[best];
    return { ...defaults, ...entry };
  };
}
