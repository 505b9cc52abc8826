/** Turn endings: keep a cancelled partial answer, and give every tool call in history a result. */
import type { Message, ToolMessage } from '../messages.js';
import { CANCELLED_RESULT } from './execute-tool-calls.js';
import type { TurnContext } from './turn-types.js';

/**
 * Appends results for calls of the last assistant message that have none, so the history stays provider-valid.
 * `completed` holds results of calls that finished before the turn stopped: they are kept (in call order), so
 * the model is not told "cancelled" about a command that did run.
 */
export async function closeOpenToolCalls(
  ctx: TurnContext,
  output: string = CANCELLED_RESULT,
  completed: ReadonlyArray<ToolMessage | undefined> = [],
): Promise<void> {
  const history = ctx.history;
  let index = history.length - 1;
  while (index >= 0 && history[index]?.role === 'tool') index--;
  const last = history[index];
  if (last?.role !== 'assistant' || !last.toolCalls?.length) return;
  const answered = new Set(history.slice(index + 1).map((message) => (message as ToolMessage).toolCallId));
  const finished = new Map(
    completed.filter((result) => result !== undefined).map((result) => [result.toolCallId, result] as const),
  );
  for (const call of last.toolCalls) {
    if (answered.has(call.id)) continue;
    const message: ToolMessage = finished.get(call.id) ?? {
      role: 'tool',
      toolCallId: call.id,
      name: call.name,
      content: output,
      isError: true,
    };
    await appendMessage(ctx, message);
  }
}

/** Appends to the live history and persists. */
export async function appendMessage(ctx: TurnContext, message: Message): Promise<void> {
  ctx.history.push(message);
  await ctx.host.persist(message);
}
