/** ModelProvider for OpenAI Chat Completions and compatible servers (vLLM, llama.cpp) through the openai SDK. */
import OpenAI from 'openai';
import type { ChatCompletionCreateParamsStreaming, ChatCompletionTool } from 'openai/resources/chat/completions';
import { OPENAI_DEFAULT_CAPABILITIES, createCapabilityLookup, type CapabilitySource } from '../capability-lookup.js';
import { DEFAULT_STREAM_TIMEOUTS, sdkTimeoutMs, StreamWatchdog, type StreamTimeouts } from '../stream-watchdog.js';
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
  /** Longest wait for the first stream chunk and between chunks (default 60 s each); the call is aborted after. */
  timeouts?: StreamTimeouts;
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
  readonly #timeouts: StreamTimeouts;
  readonly #tokenParam: 'max_tokens' | 'max_completion_tokens';

  constructor(config: OpenAIProviderConfig) {
    this.#timeouts = config.timeouts ?? DEFAULT_STREAM_TIMEOUTS;
    const baseURL = config.baseUrl ?? OPENAI_DEFAULT_BASE_URL;
    this.#client = new OpenAI({
      apiKey: config.apiKey,
      baseURL,
      maxRetries: 0,
      timeout: sdkTimeoutMs(this.#timeouts),
      ...(config.fetch === undefined ? {} : { fetch: config.fetch }),
    });
    this.#capabilities = createCapabilityLookup(config.models, OPENAI_DEFAULT_CAPABILITIES);
    this.#tokenParam =
      config.tokenParam ?? (baseURL === OPENAI_DEFAULT_BASE_URL ? 'max_completion_tokens' : 'max_tokens');
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
    // A search model searches by itself when asked through `web_search_options`; the function would only duplicate it.
    const tools =
      request.nativeWebSearch === true ? request.tools.filter((tool) => tool.name !== 'web_search') : request.tools;
    if (request.nativeWebSearch === true) params.web_search_options = {};
    if (tools.length > 0) params.tools = toTools(tools);
    if (request.maxTokens !== undefined) params[this.#tokenParam] = request.maxTokens;
    if (request.temperature !== undefined) params.temperature = request.temperature;
    if (request.reasoningEffort !== undefined) params.reasoning_effort = request.reasoningEffort;
    return params;
  }

  async *stream(
    request: ModelRequest,
    options: { signal: AbortSignal },
  ): AsyncGenerator<ModelStreamPart, void, undefined> {
    const { signal } = options;
    const watchdog = new StreamWatchdog('openai', signal, this.#timeouts);
    try {
      watchdog.throwIfStopped();
      const chunks = await this.#client.chat.completions.create(this.buildParams(request), { signal: watchdog.signal });
      // The SDK ends iteration quietly when the signal aborts mid-stream; never report that as finished.
      for await (const part of fromOpenAIStream(watchdog.track(chunks))) {
        watchdog.throwIfStopped();
        yield part;
      }
      watchdog.throwIfStopped();
    } catch (error) {
      throw watchdog.failure() ?? toOpenAIError(error, signal);
    } finally {
      watchdog.stop();
    }
  }
}

export function createOpenAIProvider(config: OpenAIProviderConfig): OpenAIProvider {
  return new OpenAIProvider(config);
}
