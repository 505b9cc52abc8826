/** ModelProvider for OpenAI Chat Completions and compatible servers (vLLM, llama.cpp) through the openai SDK. */
import OpenAI from 'openai';
import type { ChatCompletionCreateParamsStreaming, ChatCompletionTool } from 'openai/resources/chat/completions';
import { OPENAI_DEFAULT_CAPABILITIES, createCapabilityLookup, type CapabilitySource } from '../capability-lookup.js';
import type { ModelCapabilities, ModelProvider, ModelRequest, ModelStreamPart, ToolSchema } from '../model-provider.js';
import { fromOpenAIStream } from './from-openai-stream.js';
import { toOpenAIError } from './openai-errors.js';
import { toOpenAIMessages } from './to-openai-messages.js';

export const OPENAI_DEFAULT_BASE_URL = 'https://api.openai.com/v1';

export interface OpenAIProviderConfig {
  apiKey: string;
  /** Base URL including `/v1` (default OpenAI's); point it at vLLM, llama.cpp or a fake. */
  baseUrl?: string;
  /** Capabilities per model name or a function of it; unknown models get the defaults. */
  models?: CapabilitySource;
  /** Token-limit parameter: OpenAI wants `max_completion_tokens`, older compatible servers `max_tokens` (default by base URL). */
  tokenParam?: 'max_tokens' | 'max_completion_tokens';
  /** Per-request timeout in milliseconds (default 10 minutes). */
  timeoutMs?: number;
  fetch?: typeof fetch;
}

export { OPENAI_DEFAULT_CAPABILITIES };

function toTools(tools: readonly ToolSchema[]): ChatCompletionTool[] {
  return tools.map((tool) => ({
    type: 'function',
    function: { name: tool.name, description: tool.description, parameters: tool.parameters },
  }));
}

export class OpenAIProvider implements ModelProvider {
  readonly id = 'openai';
  readonly #client: OpenAI;
  readonly #capabilities: (model: string) => ModelCapabilities;
  readonly #tokenParam: 'max_tokens' | 'max_completion_tokens';

  constructor(config: OpenAIProviderConfig) {
    const baseURL = config.baseUrl ?? OPENAI_DEFAULT_BASE_URL;
    this.#client = new OpenAI({
      apiKey: config.apiKey,
      baseURL,
      maxRetries: 0,
      timeout: config.timeoutMs ?? 600_000,
      ...(config.fetch === undefined ? {} : { fetch: config.fetch }),
    });
    this.#capabilities = createCapabilityLookup(config.models, OPENAI_DEFAULT_CAPABILITIES);
    this.#tokenParam = config.tokenParam ?? (baseURL === OPENAI_DEFAULT_BASE_URL ? 'max_completion_tokens' : 'max_tokens');
  }

  capabilities(model: string): ModelCapabilities {
    return this.#capabilities(model);
  }

  /** The request body sent for `request` (exposed for tests and debugging). */
  buildParams(request: ModelRequest): ChatCompletionCreateParamsStreaming {
    const params: ChatCompletionCreateParamsStreaming = {
      model: request.model,
      messages: toOpenAIMessages(request.messages, { supportsVision: this.capabilities(request.model).supportsVision }),
      stream: true,
      stream_options: { include_usage: true },
    };
    if (request.tools.length > 0) params.tools = toTools(request.tools);
    if (request.maxTokens !== undefined) params[this.#tokenParam] = request.maxTokens;
    if (request.temperature !== undefined) params.temperature = request.temperature;
    if (request.reasoningEffort !== undefined) params.reasoning_effort = request.reasoningEffort;
    return params;
  }

  async *stream(request: ModelRequest, options: { signal: AbortSignal }): AsyncGenerator<ModelStreamPart, void, undefined> {
    const { signal } = options;
    try {
      signal.throwIfAborted();
      const chunks = await this.#client.chat.completions.create(this.buildParams(request), { signal });
      // The SDK ends iteration quietly when the signal aborts mid-stream; never report that as finished.
      for await (const part of fromOpenAIStream(chunks)) {
        signal.throwIfAborted();
        yield part;
      }
    } catch (error) {
      throw toOpenAIError(error, signal);
    }
  }
}

export function createOpenAIProvider(config: OpenAIProviderConfig): OpenAIProvider {
  return new OpenAIProvider(config);
}
