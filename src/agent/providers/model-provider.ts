/** The model-provider port: one streaming call shape for every LLM vendor. */
import type { Message, ToolCall, Usage } from '../messages.js';

/** A function tool as sent to a model (OpenAI function format, metadata stripped). */
export interface ToolSchema {
  name: string;
  description: string;
  parameters: Record<string, unknown>;
}

export interface ModelRequest {
  /** Model name sent to the API. */
  model: string;
  /** Full history, system message first. */
  messages: readonly Message[];
  tools: readonly ToolSchema[];
  maxTokens?: number;
  temperature?: number;
  /** Ask for reasoning output where the model supports it. */
  reasoningEffort?: 'low' | 'medium' | 'high';
  /**
   * Names of tools to send with deferred loading: the provider adds its own tool-search tool and the model loads
   * them on demand (only set for models with native tool search, src/agent/providers/native-tools.ts).
   */
  deferredTools?: readonly string[];
  /** Replace the `web_search` function with the provider's own web search (models with native web search). */
  nativeWebSearch?: boolean;
}

export type FinishReason = 'stop' | 'tool-calls' | 'length' | 'content-filter' | 'other';

export type ModelStreamPart =
  | { type: 'text-delta'; text: string }
  | { type: 'reasoning-delta'; text: string }
  /** A complete tool call (arguments fully streamed). */
  | { type: 'tool-call'; call: ToolCall }
  /**
   * The call's text is complete and its finish reason known (the provider sent its stop reason); tool calls, usage and
   * `finish` may still follow. Optional: the final edit of an answer can start here instead of at the stream's end.
   * `providerData` is what `finish` would carry for the message (it is complete here when the provider knows it), so
   * a complete answer can be committed at this point (docs/design/durability.md).
   */
  | { type: 'text-end'; finishReason: FinishReason; providerData?: unknown }
  /** Always the last part of a successful stream. */
  | { type: 'finish'; finishReason: FinishReason; usage?: Usage; providerData?: unknown };

export interface ModelCapabilities {
  contextWindow: number;
  maxOutputTokens: number;
  supportsVision: boolean;
}

export interface ModelProvider {
  /** `openai` or `anthropic`. */
  readonly id: string;
  /**
   * Streams one model call. Yields deltas as they arrive and ends with exactly one `finish` part.
   * Throws `ProviderError` (with `retryable`, `status`, `retryAfterMs`) on HTTP or connection failure;
   * throws an abort error when `signal` aborts. Does not retry on its own.
   */
  stream(request: ModelRequest, options: { signal: AbortSignal }): AsyncIterable<ModelStreamPart>;
  /** Static capabilities of a model name (from config, with defaults). */
  capabilities(model: string): ModelCapabilities;
}
