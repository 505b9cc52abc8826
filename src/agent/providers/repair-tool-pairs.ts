/** Makes tool calls and tool results pair up before a request: both vendors reject unanswered or orphan ones. */
import type { AssistantMessage, Message, ToolMessage } from '../messages.js';

/** Content of the synthetic result that answers a tool call whose result was never recorded. */
export const MISSING_TOOL_RESULT = 'Error: no result was recorded for this tool call (interrupted).';

function answerRun(assistant: AssistantMessage, run: readonly ToolMessage[]): ToolMessage[] {
  const calls = assistant.toolCalls ?? [];
  const wanted = new Set(calls.map((call) => call.id));
  const seen = new Set<string>();
  const kept: ToolMessage[] = [];
  for (const result of run) {
    if (!wanted.has(result.toolCallId) || seen.has(result.toolCallId)) continue;
    seen.add(result.toolCallId);
    kept.push(result);
  }
  for (const call of calls) {
    if (seen.has(call.id)) continue;
    kept.push({ role: 'tool', toolCallId: call.id, name: call.name, content: MISSING_TOOL_RESULT, isError: true });
  }
  return kept;
}

/**
 * Returns a history in which every assistant tool call is directly followed by exactly one result
 * (a synthetic error result when none was recorded) and tool results without a matching call are dropped.
 */
export function repairToolPairs(messages: readonly Message[]): Message[] {
  const out: Message[] = [];
  let index = 0;
  while (index < messages.length) {
    const message = messages[index] as Message;
    index += 1;
    if (message.role === 'tool') continue;
    out.push(message);
    if (message.role !== 'assistant' || (message.toolCalls?.length ?? 0) === 0) continue;
    const run: ToolMessage[] = [];
    while (index < messages.length && messages[index]?.role === 'tool') {
      run.push(messages[index] as ToolMessage);
      index += 1;
    }
    out.push(...answerRun(message, run));
  }
  return out;
}
