/** Provider-neutral conversation messages: the canonical history format of a workstream. */

export interface TextPart {
  type: 'text';
  text: string;
}

/**
 * An image for models that support vision: base64 `data`, or a `file` saved in the workstream folder (an attachment),
 * stored in history with empty `data` and loaded when a request is built (src/agent/turn/attached-images.ts).
 */
export interface ImagePart {
  type: 'image';
  mediaType: string;
  data: string;
  /** Path relative to the workstream folder of the image to send (`data` is '' in history). */
  file?: string;
}

export type ContentPart = TextPart | ImagePart;

/** A tool call as the model made it; `arguments` is the raw JSON text (possibly malformed). */
export interface ToolCall {
  id: string;
  name: string;
  arguments: string;
}

export interface SystemMessage {
  role: 'system';
  content: string;
}

export interface UserMessage {
  role: 'user';
  content: string | ContentPart[];
}

export interface AssistantMessage {
  role: 'assistant';
  content: string;
  toolCalls?: ToolCall[];
  /** Reasoning text shown to users (not replayed to providers that do not sign it). */
  reasoning?: string;
  /** Opaque provider blocks to replay verbatim (Anthropic thinking blocks with signatures). */
  providerData?: unknown;
}

export interface ToolMessage {
  role: 'tool';
  toolCallId: string;
  name: string;
  content: string | ContentPart[];
  isError?: boolean;
}

export type Message = SystemMessage | UserMessage | AssistantMessage | ToolMessage;

/** Token usage reported by a provider for one model call. */
export interface Usage {
  inputTokens: number;
  outputTokens: number;
  /** Input tokens read from the provider's prompt cache (part of inputTokens), when it reports them. */
  cachedTokens?: number;
}

/** Plain text of a message's content (image parts dropped). */
export function contentText(content: string | ContentPart[]): string {
  if (typeof content === 'string') return content;
  return content
    .filter((part): part is TextPart => part.type === 'text')
    .map((part) => part.text)
    .join('\n');
}
