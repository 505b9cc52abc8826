/** Message ↔ `conversations` row mapping, the history repair rule, and full-text query sanitising. */
import type { AssistantMessage, ContentPart, Message, ToolCall } from '../agent/messages.js';
import { INTERRUPTED_TOOL_RESULT } from '../shared/interruption.js';
import { safeParseJson, isPlainObject } from '../shared/json.js';
import { fromDbBool, nullableText, text, toDbBool, type DbRow } from './rows.js';

export interface ConversationInsert {
  ws_id: string;
  timestamp: string;
  role: string;
  content: string;
  content_parts: string | null;
  tool_name: string | null;
  tool_call_id: string | null;
  tool_calls: string | null;
  provider_data: string | null;
  reasoning: string | null;
  is_error: number | null;
}

/** Text of the content as indexed for search: text parts joined by newlines, images dropped. */
function plainText(content: string | ContentPart[]): string {
  if (typeof content === 'string') return content;
  return content
    .filter((part) => part.type === 'text')
    .map((part) => (part.type === 'text' ? part.text : ''))
    .join('\n');
}

function contentColumns(content: string | ContentPart[]): { content: string; content_parts: string | null } {
  return typeof content === 'string'
    ? { content, content_parts: null }
    : { content: plainText(content), content_parts: JSON.stringify(content) };
}

/** The row for a non-system message. */
export function toConversationRow(
  wsId: string,
  timestamp: string,
  message: Exclude<Message, { role: 'system' }>,
): ConversationInsert {
  const base: ConversationInsert = {
    ws_id: wsId,
    timestamp,
    role: message.role,
    content: '',
    content_parts: null,
    tool_name: null,
    tool_call_id: null,
    tool_calls: null,
    provider_data: null,
    reasoning: null,
    is_error: null,
  };
  if (message.role === 'user') return { ...base, ...contentColumns(message.content) };
  if (message.role === 'tool') {
    return {
      ...base,
      ...contentColumns(message.content),
      tool_name: message.name,
      tool_call_id: message.toolCallId,
      is_error: message.isError === undefined ? null : toDbBool(message.isError),
    };
  }
  return {
    ...base,
    content: message.content,
    tool_calls: message.toolCalls === undefined ? null : JSON.stringify(message.toolCalls),
    provider_data: message.providerData === undefined ? null : JSON.stringify(message.providerData),
    reasoning: message.reasoning ?? null,
  };
}

function isToolCall(value: unknown): value is ToolCall {
  return (
    isPlainObject(value) &&
    typeof value.id === 'string' &&
    typeof value.name === 'string' &&
    typeof value.arguments === 'string'
  );
}

function isContentPart(value: unknown): value is ContentPart {
  if (!isPlainObject(value)) return false;
  if (value.type === 'text') return typeof value.text === 'string';
  return value.type === 'image' && typeof value.mediaType === 'string' && typeof value.data === 'string';
}

function readContent(row: DbRow): string | ContentPart[] {
  if (typeof row.content_parts === 'string') {
    const parsed = safeParseJson(row.content_parts);
    if (parsed.ok && Array.isArray(parsed.value) && parsed.value.every(isContentPart)) return parsed.value;
  }
  return text(row.content);
}

function readAssistant(row: DbRow): AssistantMessage {
  const message: AssistantMessage = { role: 'assistant', content: text(row.content) };
  if (typeof row.tool_calls === 'string') {
    const parsed = safeParseJson(row.tool_calls);
    if (parsed.ok && Array.isArray(parsed.value) && parsed.value.every(isToolCall)) message.toolCalls = parsed.value;
  }
  const reasoning = nullableText(row.reasoning);
  if (reasoning !== null) message.reasoning = reasoning;
  if (typeof row.provider_data === 'string') {
    const parsed = safeParseJson(row.provider_data);
    if (parsed.ok) message.providerData = parsed.value;
  }
  return message;
}

/** The message of a row, or undefined for an unknown role. */
export function fromConversationRow(row: DbRow): Message | undefined {
  switch (row.role) {
    case 'user':
      return { role: 'user', content: readContent(row) };
    case 'assistant':
      return readAssistant(row);
    case 'tool': {
      const message: Message = {
        role: 'tool',
        toolCallId: text(row.tool_call_id),
        name: text(row.tool_name),
        content: readContent(row),
      };
      if (row.is_error !== null && row.is_error !== undefined) message.isError = fromDbBool(row.is_error);
      return message;
    }
    default:
      return undefined;
  }
}

/**
 * Answers interrupted tool calls: an assistant message with tool calls whose results do not all follow it
 * (contiguously) is kept, and each missing result is filled in as an error the model reads ("interrupted — may have
 * run; not repeated"), after the results that were stored. The assistant message itself is never dropped: the model
 * must learn that a call it made may have run (docs/decisions/0013-crash-safe-turns.md). Everything else is kept as stored.
 */
export function repairHistory(messages: readonly Message[]): Message[] {
  const repaired: Message[] = [];
  let index = 0;
  while (index < messages.length) {
    const message = messages[index] as Message;
    index += 1;
    repaired.push(message);
    if (message.role !== 'assistant' || !message.toolCalls || message.toolCalls.length === 0) continue;
    const answered = new Set<string>();
    for (let next = messages[index]; next?.role === 'tool'; next = messages[index]) {
      index += 1;
      answered.add(next.toolCallId);
      repaired.push(next);
    }
    for (const call of message.toolCalls) {
      if (!answered.has(call.id)) repaired.push(interruptedResult(call));
    }
  }
  return repaired;
}

function interruptedResult(call: ToolCall): Message {
  return { role: 'tool', toolCallId: call.id, name: call.name, content: INTERRUPTED_TOOL_RESULT, isError: true };
}

/** Whitespace-separated terms of a user query, with the characters full-text syntax would interpret removed. */
function queryTerms(query: string): string[] {
  return query
    .split(/\s+/)
    .map((term) => term.replace(/["\u0000]/g, ''))
    .filter((term) => term !== '');
}

/** FTS5 MATCH expression: every term as a quoted string (implicit AND of literal terms). */
export function toFts5Query(query: string): string | undefined {
  const terms = queryTerms(query);
  return terms.length === 0 ? undefined : terms.map((term) => `"${term}"`).join(' ');
}

/** websearch_to_tsquery input with the same meaning: every term quoted, so `or`, `-` and quotes are literal. */
export function toWebsearchQuery(query: string): string | undefined {
  return toFts5Query(query);
}
