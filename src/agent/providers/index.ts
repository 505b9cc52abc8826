/** Public surface of the model providers: the port, the factory, retries and error helpers. */
export type {
  FinishReason,
  ModelCapabilities,
  ModelProvider,
  ModelRequest,
  ModelStreamPart,
  ToolSchema,
} from './model-provider.js';
export { createProvider, capabilitiesFromConfig, type CreateProviderOptions } from './create-provider.js';
export { streamWithRetries, retryDelayMs, type RetryInfo, type RetryOptions } from './with-retries.js';
export { createCapabilityLookup, type CapabilitySource } from './capability-lookup.js';
export { parseRetryAfterMs } from './provider-errors.js';
export { repairToolPairs, MISSING_TOOL_RESULT } from './repair-tool-pairs.js';
export { createOpenAIProvider, OpenAIProvider, type OpenAIProviderConfig } from './openai/openai-provider.js';
export {
  createAnthropicProvider,
  AnthropicProvider,
  type AnthropicProviderConfig,
} from './anthropic/anthropic-provider.js';
