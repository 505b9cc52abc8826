/** Rough token estimates (4 characters per token, 1000 per image) to decide when to compact. */
import type { Message } from '../messages.js';
import type { ModelRequest, ToolSchema } from '../providers/model-provider.js';

const CHARS_PER_TOKEN = 4;
const IMAGE_TOKENS = 1000;

export function estimateMessageTokens(message: Message): number {
  let chars = 0;
  let images = 0;
  if (typeof message.content === 'string') chars += message.content.length;
  else {
    for (const part of message.content) {
      if (part.type === 'text') chars += part.text.length;
      else images++;
    }
  }
  if (message.role === 'assistant') {
    for (const call of message.toolCalls ?? []) chars += call.name.length + call.arguments.length;
  }
  return Math.max(1, Math.ceil(chars / CHARS_PER_TOKEN)) + images * IMAGE_TOKENS;
}

export function estimateTokens(messages: readonly Message[]): number {
  return messages.reduce((sum, message) => sum + estimateMessageTokens(message), 0);
}

/** Serialized length of each tool schema: schemas are shared between calls (toToolSchema), their JSON is not. */
const schemaChars = new WeakMap<ToolSchema, number>();

function toolChars(tool: ToolSchema): number {
  let chars = schemaChars.get(tool);
  if (chars === undefined) {
    chars = JSON.stringify(tool).length;
    schemaChars.set(tool, chars);
  }
  return chars;
}

/** Messages plus tool schemas plus the reserved output budget. */
export function estimateRequestTokens(request: ModelRequest): number {
  const toolTotal = request.tools.reduce((sum, tool) => sum + toolChars(tool), 0);
  return estimateTokens(request.messages) + Math.ceil(toolTotal / CHARS_PER_TOKEN);
}
