/** Converts provider-neutral history into Anthropic Messages params: system extracted, tool results merged, thinking replayed. */
import type {
  ContentBlockParam,
  ImageBlockParam,
  MessageParam,
  TextBlockParam,
  ToolResultBlockParam,
} from '@anthropic-ai/sdk/resources/messages';
import { isPlainObject, safeParseJson } from '../../../shared/json.js';
import type { AssistantMessage, ContentPart, Message, ToolMessage } from '../../messages.js';
import { repairToolPairs } from '../repair-tool-pairs.js';

export interface ToAnthropicOptions {
  /** Send image parts; without vision they become a short text note. */
  supportsVision: boolean;
}

export interface AnthropicConversation {
  /** All system messages joined with a blank line; undefined when there are none. */
  system: string | undefined;
  /** Strictly alternating user/assistant messages, starting with the user. */
  messages: MessageParam[];
}

export const IMAGE_OMITTED = '[image omitted: this model does not accept images]';
/** Placeholder first turn when a history starts with the assistant. */
export const CONTINUE_PLACEHOLDER = '(continuing the conversation)';

const IMAGE_TYPES = new Set(['image/jpeg', 'image/png', 'image/gif', 'image/webp']);

type Block = ContentBlockParam;
type Turn = { role: 'user' | 'assistant'; content: Block[] };

function imageBlock(
  part: Extract<ContentPart, { type: 'image' }>,
  options: ToAnthropicOptions,
): ImageBlockParam | TextBlockParam {
  if (!options.supportsVision) return { type: 'text', text: IMAGE_OMITTED };
  if (!IMAGE_TYPES.has(part.mediaType))
    return { type: 'text', text: `[image omitted: unsupported type ${part.mediaType}]` };
  const mediaType = part.mediaType as 'image/jpeg' | 'image/png' | 'image/gif' | 'image/webp';
  return { type: 'image', source: { type: 'base64', media_type: mediaType, data: part.data } };
}

function toBlocks(
  content: string | ContentPart[],
  options: ToAnthropicOptions,
): Array<TextBlockParam | ImageBlockParam> {
  if (typeof content === 'string') return content === '' ? [] : [{ type: 'text', text: content }];
  return content
    .map((part) => (part.type === 'text' ? ({ type: 'text', text: part.text } as const) : imageBlock(part, options)))
    .filter((block) => block.type !== 'text' || block.text !== '');
}

/** Parsed tool input; malformed or non-object JSON becomes `{}` so the request stays valid. */
export function parseToolInput(text: string): Record<string, unknown> {
  const parsed = safeParseJson(text);
  return parsed.ok && isPlainObject(parsed.value) ? parsed.value : {};
}

function toolUse(call: { id: string; name: string; arguments: string }): Block {
  return { type: 'tool_use', id: call.id, name: call.name, input: parseToolInput(call.arguments) };
}

/** Raw blocks from `providerData` (thinking with signatures first), minus tool_use blocks no longer in the message. */
function replayBlocks(message: AssistantMessage): Block[] | undefined {
  const raw = message.providerData;
  if (!Array.isArray(raw) || raw.length === 0) return undefined;
  if (!raw.every((block) => isPlainObject(block) && typeof block['type'] === 'string')) return undefined;
  const calls = message.toolCalls ?? [];
  const callIds = new Set(calls.map((call) => call.id));
  const kept = (raw as Array<Record<string, unknown>>).filter((block) => {
    if (block['type'] === 'tool_use') return callIds.has(String(block['id']));
    return block['type'] !== 'text' || block['text'] !== '';
  });
  const replayedIds = new Set(kept.filter((block) => block['type'] === 'tool_use').map((block) => String(block['id'])));
  const missing = calls.filter((call) => !replayedIds.has(call.id)).map(toolUse);
  return [...(kept as unknown as Block[]), ...missing];
}

function assistantBlocks(message: AssistantMessage): Block[] {
  const replayed = replayBlocks(message);
  if (replayed !== undefined) return replayed;
  const blocks: Block[] = message.content === '' ? [] : [{ type: 'text', text: message.content }];
  return [...blocks, ...(message.toolCalls ?? []).map(toolUse)];
}

function toolResult(result: ToolMessage, options: ToAnthropicOptions): ToolResultBlockParam {
  const content = typeof result.content === 'string' ? result.content : toBlocks(result.content, options);
  return {
    type: 'tool_result',
    tool_use_id: result.toolCallId,
    content,
    ...(result.isError === true ? { is_error: true } : {}),
  };
}

/** Appends a turn, merging it into the previous one when the roles repeat (the API needs alternation). */
function pushTurn(turns: Turn[], turn: Turn): void {
  if (turn.content.length === 0) return;
  const last = turns.at(-1);
  if (last !== undefined && last.role === turn.role) last.content.push(...turn.content);
  else turns.push(turn);
}

/** Converts the history into the Anthropic `system` param and alternating messages. */
export function toAnthropicMessages(messages: readonly Message[], options: ToAnthropicOptions): AnthropicConversation {
  const systems: string[] = [];
  const turns: Turn[] = [];
  for (const message of repairToolPairs(messages)) {
    if (message.role === 'system') {
      if (message.content !== '') systems.push(message.content);
    } else if (message.role === 'assistant') {
      pushTurn(turns, { role: 'assistant', content: assistantBlocks(message) });
    } else if (message.role === 'tool') {
      pushTurn(turns, { role: 'user', content: [toolResult(message, options)] });
    } else {
      pushTurn(turns, { role: 'user', content: toBlocks(message.content, options) });
    }
  }
  if (turns[0]?.role === 'assistant')
    turns.unshift({ role: 'user', content: [{ type: 'text', text: CONTINUE_PLACEHOLDER }] });
  return { system: systems.length === 0 ? undefined : systems.join('\n\n'), messages: turns };
}
