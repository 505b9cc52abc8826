/** Converts provider-neutral history into OpenAI Chat Completions messages (tool calls, tool results, images). */
import type {
  ChatCompletionAssistantMessageParam,
  ChatCompletionContentPart,
  ChatCompletionMessageParam,
} from 'openai/resources/chat/completions';
import { contentText, type ContentPart, type Message, type ToolMessage } from '../../messages.js';
import { repairToolPairs } from '../repair-tool-pairs.js';

export interface ToOpenAIOptions {
  /** Send image parts; without vision they become a short text note. */
  supportsVision: boolean;
}

/** Placeholder for an image the model cannot see. */
export const IMAGE_OMITTED = '[image omitted: this model does not accept images]';

function isValidJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

function toParts(content: ContentPart[], options: ToOpenAIOptions): ChatCompletionContentPart[] {
  return content.map((part): ChatCompletionContentPart => {
    if (part.type === 'text') return { type: 'text', text: part.text };
    if (!options.supportsVision) return { type: 'text', text: IMAGE_OMITTED };
    return { type: 'image_url', image_url: { url: `data:${part.mediaType};base64,${part.data}` } };
  });
}

function toAssistant(message: Extract<Message, { role: 'assistant' }>): ChatCompletionAssistantMessageParam {
  const calls = message.toolCalls ?? [];
  const out: ChatCompletionAssistantMessageParam = {
    role: 'assistant',
    content: message.content === '' && calls.length > 0 ? null : message.content,
  };
  if (calls.length > 0) {
    // History with malformed arguments makes some servers (vLLM chat templates) reject the whole request.
    out.tool_calls = calls.map((call) => ({
      id: call.id,
      type: 'function' as const,
      function: { name: call.name, arguments: isValidJson(call.arguments) ? call.arguments : '{}' },
    }));
  }
  return out;
}

/** Tool messages carry text only; their images follow the run of results as one user message. */
function toToolRun(run: readonly ToolMessage[], options: ToOpenAIOptions): ChatCompletionMessageParam[] {
  const images: ChatCompletionContentPart[] = [];
  const out: ChatCompletionMessageParam[] = run.map((result) => {
    let text = contentText(result.content);
    if (typeof result.content !== 'string') {
      const imageCount = result.content.filter((part) => part.type === 'image').length;
      if (imageCount > 0 && options.supportsVision) {
        images.push({ type: 'text', text: `Image(s) returned by tool call ${result.toolCallId}:` });
        images.push(
          ...toParts(
            result.content.filter((part) => part.type === 'image'),
            options,
          ),
        );
        text = `${text}${text === '' ? '' : '\n'}[${imageCount} image(s) attached in the next message]`;
      } else if (imageCount > 0) {
        text = `${text}${text === '' ? '' : '\n'}${IMAGE_OMITTED}`;
      }
    }
    return { role: 'tool', tool_call_id: result.toolCallId, content: text };
  });
  if (images.length > 0) out.push({ role: 'user', content: images });
  return out;
}

/** Converts the history (system message first) into Chat Completions messages. */
export function toOpenAIMessages(messages: readonly Message[], options: ToOpenAIOptions): ChatCompletionMessageParam[] {
  const history = repairToolPairs(messages);
  const out: ChatCompletionMessageParam[] = [];
  let index = 0;
  while (index < history.length) {
    const message = history[index] as Message;
    if (message.role === 'tool') {
      const run: ToolMessage[] = [];
      while (history[index]?.role === 'tool') run.push(history[index++] as ToolMessage);
      out.push(...toToolRun(run, options));
      continue;
    }
    index += 1;
    if (message.role === 'system') out.push({ role: 'system', content: message.content });
    else if (message.role === 'assistant') out.push(toAssistant(message));
    else
      out.push({
        role: 'user',
        content: typeof message.content === 'string' ? message.content : toParts(message.content, options),
      });
  }
  return out;
}
