/** ModelProvider for the Anthropic Messages API through @anthropic-ai/sdk (streaming, tools, extended thinking). */
import Anthropic from '@anthropic-ai/sdk';
import type {
  MessageCreateParamsStreaming,
  Tool,
  ToolSearchToolBm25_20251119,
  ToolUnion,
  WebSearchTool20250305,
} from '@anthropic-ai/sdk/resources/messages';
import { ANTHROPIC_DEFAULT_CAPABILITIES, createCapabilityLookup, type CapabilitySource } from '../capability-lookup.js';
import { DEFAULT_STREAM_TIMEOUTS, sdkTimeoutMs, StreamWatchdog, type StreamTimeouts } from '../stream-watchdog.js';
import type { ModelCapabilities, ModelProvider, ModelRequest, ModelStreamPart, ToolSchema } from '../model-provider.js';
import { toAnthropicError } from './anthropic-errors.js';
import { fromAnthropicStream } from './from-anthropic-stream.js';
import { toAnthropicMessages } from './to-anthropic-messages.js';

export const ANTHROPIC_DEFAULT_BASE_URL = 'https://api.anthropic.com';

export interface AnthropicProviderConfig {
  apiKey: string;
  /** API origin without `/v1` (default Anthropic's). */
  baseUrl?: string;
  /** Capabilities per model name or a function of it; unknown models get the defaults. */
  models?: CapabilitySource;
  /** Longest wait for the first stream chunk and between chunks (default 60 s each); the call is aborted after. */
  timeouts?: StreamTimeouts;
  fetch?: typeof fetch;
}

export { ANTHROPIC_DEFAULT_CAPABILITIES };

/** Thinking budget per reasoning effort (the Turnstone manual-thinking table). */
const THINKING_BUDGET = { low: 1024, medium: 4096, high: 16384 } as const;
const MIN_THINKING_BUDGET = 1024;

/** Anthropic's server tools that stand in for our fallbacks (wire shapes of the Messages API). */
export const ANTHROPIC_WEB_SEARCH_TOOL: WebSearchTool20250305 = {
  type: 'web_search_20250305',
  name: 'web_search',
  max_uses: 5,
};
export const ANTHROPIC_TOOL_SEARCH_TOOL: ToolSearchToolBm25_20251119 = {
  type: 'tool_search_tool_bm25_20251119',
  name: 'tool_search_tool_bm25',
};

/**
 * Function tools, with the provider's own tools where the request asks for them: `web_search` becomes the web search
 * server tool, deferred tools get `defer_loading` and the tool-search server tool is added (it is never deferred).
 */
function toTools(request: ModelRequest): ToolUnion[] {
  const deferred = new Set(request.deferredTools ?? []);
  const tools: ToolUnion[] = request.tools.map((tool: ToolSchema): ToolUnion => {
    if (request.nativeWebSearch === true && tool.name === ANTHROPIC_WEB_SEARCH_TOOL.name)
      return { ...ANTHROPIC_WEB_SEARCH_TOOL };
    const converted: Tool = {
      name: tool.name,
      description: tool.description,
      input_schema: { ...tool.parameters, type: 'object' } as Tool.InputSchema,
    };
    if (deferred.has(tool.name)) converted.defer_loading = true;
    return converted;
  });
  if (request.tools.some((tool) => deferred.has(tool.name))) tools.push({ ...ANTHROPIC_TOOL_SEARCH_TOOL });
  return tools;
}

/** Adds manual extended thinking for a reasoning effort; the budget must stay below max_tokens. */
function applyThinking(params: MessageCreateParamsStreaming, effort: ModelRequest['reasoningEffort']): void {
  if (effort === undefined || params.max_tokens <= MIN_THINKING_BUDGET) return;
  let budget: number = THINKING_BUDGET[effort];
  if (budget >= params.max_tokens) budget = Math.max(MIN_THINKING_BUDGET, params.max_tokens - MIN_THINKING_BUDGET);
  params.thinking = { type: 'enabled', budget_tokens: budget };
}

export class AnthropicProvider implements ModelProvider {
  readonly id = 'anthropic';
  readonly #client: Anthropic;
  readonly #capabilities: (model: string) => ModelCapabilities;
  readonly #timeouts: StreamTimeouts;

  constructor(config: AnthropicProviderConfig) {
    this.#timeouts = config.timeouts ?? DEFAULT_STREAM_TIMEOUTS;
    this.#client = new Anthropic({
      apiKey: config.apiKey,
      baseURL: config.baseUrl ?? ANTHROPIC_DEFAULT_BASE_URL,
      maxRetries: 0,
      timeout: sdkTimeoutMs(this.#timeouts),
      ...(config.fetch === undefined ? {} : { fetch: config.fetch }),
    });
    this.#capabilities = createCapabilityLookup(config.models, ANTHROPIC_DEFAULT_CAPABILITIES);
  }

  capabilities(model: string): ModelCapabilities {
    return this.#capabilities(model);
  }

  /** The request body sent for `request` (exposed for tests and debugging). */
  buildParams(request: ModelRequest): MessageCreateParamsStreaming {
    const capabilities = this.capabilities(request.model);
    const conversation = toAnthropicMessages(request.messages, { supportsVision: capabilities.supportsVision });
    const params: MessageCreateParamsStreaming = {
      model: request.model,
      max_tokens: request.maxTokens ?? capabilities.maxOutputTokens,
      messages: conversation.messages,
      stream: true,
    };
    if (conversation.system !== undefined) params.system = conversation.system;
    if (request.tools.length > 0) params.tools = toTools(request);
    // `temperature` is not sent: the Messages API of SDK 1.x no longer has the parameter.
    applyThinking(params, request.reasoningEffort);
    return params;
  }

  async *stream(
    request: ModelRequest,
    options: { signal: AbortSignal },
  ): AsyncGenerator<ModelStreamPart, void, undefined> {
    const { signal } = options;
    const watchdog = new StreamWatchdog('anthropic', signal, this.#timeouts);
    try {
      watchdog.throwIfStopped();
      const events = await this.#client.messages.create(this.buildParams(request), { signal: watchdog.signal });
      // The SDK ends iteration quietly when the signal aborts mid-stream; never report that as finished.
      for await (const part of fromAnthropicStream(watchdog.track(events))) {
        watchdog.throwIfStopped();
        yield part;
      }
      watchdog.throwIfStopped();
    } catch (error) {
      throw watchdog.failure() ?? toAnthropicError(error, signal);
    } finally {
      watchdog.stop();
    }
  }
}

export function createAnthropicProvider(config: AnthropicProviderConfig): AnthropicProvider {
  return new AnthropicProvider(config);
}
