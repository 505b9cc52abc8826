/**
 * The fake model of the multi-instance tests: it answers from the conversation itself (no queue), so any instance
 * may run any turn, a resumed turn included. A conversation is named by a tag `cNNN` in its first message, which
 * also says its kind (`kind=approve|always|reject|notify|plain`):
 * - a turn whose last message is a tool result (or that already has a real tool result) answers `answer:cNNN`;
 * - an approval kind without a real tool result asks for `bash` (call id `call_cNNN_<n>`, n counting the calls so
 *   far, so a resumed turn asks again with a new id and a new card) appending its call id to the tool log;
 * - a reply to a notification (`reply cNNN`) answers `reply-answer:cNNN`; anything else `answer:cNNN`.
 */
import { INTERRUPTED_TOOL_RESULT } from '../../src/shared/interruption.js';
import type { ScriptedResponse } from '../fakes/fake-llm-server.js';

export type ConversationKind = 'approve' | 'always' | 'reject' | 'notify' | 'plain';

interface ChatMessage {
  role: string;
  content?: unknown;
  tool_calls?: unknown[];
}

const TAG = /\b(c\d{3,})\b/;

function textOf(message: ChatMessage): string {
  return typeof message.content === 'string' ? message.content : JSON.stringify(message.content ?? '');
}

/** The answer a conversation's first turn ends with. */
export function answerText(tag: string): string {
  return `answer:${tag}`;
}

/** The answer to the reply to a conversation's notification. */
export function replyAnswerText(tag: string): string {
  return `reply-answer:${tag}`;
}

/** The first message of conversation `tag`. */
export function openingText(tag: string, kind: ConversationKind): string {
  return `${tag} kind=${kind} please`;
}

/** The shell command a call runs: one line with its id in the tool log, so a call run twice shows twice. */
function toolCall(id: string, toolLog: string): ScriptedResponse {
  return {
    toolCalls: [{ id, name: 'bash', arguments: JSON.stringify({ command: `printf '%s\\n' ${id} >> ${toolLog}` }) }],
  };
}

/** The scripted answer for one model request (OpenAI chat body). */
export function clusterModelAnswer(body: unknown, toolLog: string): ScriptedResponse {
  const messages = (body as { messages?: ChatMessage[] } | undefined)?.messages ?? [];
  const userTexts = messages.filter((message) => message.role === 'user').map(textOf);
  const opening = userTexts.find((text) => TAG.test(text));
  const tag = opening?.match(TAG)?.[1];
  if (opening === undefined || tag === undefined) return { text: 'I see no conversation tag.' };
  const latest = [...userTexts].reverse().find((text) => TAG.test(text)) ?? opening;
  if (/\breply c\d+/.test(latest)) return { text: replyAnswerText(tag) };
  const kind = /kind=(\w+)/.exec(opening)?.[1];
  const toolResults = messages.filter((message) => message.role === 'tool');
  const ran =
    toolResults.some((message) => textOf(message) !== INTERRUPTED_TOOL_RESULT) || messages.at(-1)?.role === 'tool';
  if (ran || (kind !== 'approve' && kind !== 'always' && kind !== 'reject')) return { text: answerText(tag) };
  const calls = messages.reduce((sum, message) => sum + (message.tool_calls?.length ?? 0), 0);
  return toolCall(`call_${tag}_${calls + 1}`, toolLog);
}

/** The conversation tag of a recorded model request, when it has one. */
export function tagOfRequest(body: unknown): string | undefined {
  const messages = (body as { messages?: ChatMessage[] } | undefined)?.messages ?? [];
  for (const message of messages) {
    if (message.role !== 'user') continue;
    const found = TAG.exec(textOf(message))?.[1];
    if (found !== undefined) return found;
  }
  return undefined;
}
