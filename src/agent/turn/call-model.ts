/** One model call: streams parts into events, collects the assistant message, reports usage and finish. */
import { describeError } from '../../shared/errors.js';
import type { AssistantMessage, ToolCall } from '../messages.js';
import type { FinishReason, ModelRequest, ModelStreamPart } from '../providers/model-provider.js';
import { DurableWriteError, isDurableWriteError } from './durable-write.js';
import type { TurnContext } from './turn-types.js';

export interface ModelCallResult {
  message: AssistantMessage;
  finishReason: FinishReason;
  /** The message is the turn's complete answer and was committed at the stop reason (`host.answered`). */
  committed: boolean;
}

/** Text streamed so far, kept by the caller so a cancelled call can keep its partial answer. */
export interface PartialText {
  text: string;
}

/**
 * Streams one call through `ctx.streamModel` (which retries), emitting `text-delta` / `reasoning-delta` and
 * `model-call-end` (as soon as the stream's `text-end` part arrives, or its `finish` when there was none). A complete
 * answer is committed (`host.answered`, the *answered* commit point) before `model-call-end` starts the final edit.
 * Throws provider errors once retries are exhausted, abort errors on cancel (except once the answer was committed),
 * and a `DurableWriteError` when the answer could not be committed.
 */
export async function callModel(
  ctx: TurnContext,
  request: ModelRequest,
  partial: PartialText,
): Promise<ModelCallResult> {
  const call: CallState = {
    reasoning: '',
    calls: [],
    finishReason: 'other',
    providerData: undefined,
    ended: false,
    textEnded: false,
    committed: undefined,
  };
  partial.text = '';
  ctx.host.recordPartial?.('');
  const stream = ctx.streamModel(ctx.model.provider, request, {
    signal: ctx.signal,
    onRetry: ({ attempt, delayMs }) =>
      ctx.logger.warn({ wsId: ctx.wsId, attempt, delayMs }, 'model call failed; retrying'),
  });
  try {
    for await (const part of stream) {
      ctx.signal.throwIfAborted();
      await applyPart(ctx, call, partial, part);
    }
    ctx.signal.throwIfAborted();
  } catch (error) {
    if (isDurableWriteError(error) || !answered(call)) throw error;
    // Only the usage and the stream's end were still to come: a stop, a shutdown or a dropped connection now leaves
    // the answer as it was shown in full (it is not answered a second time after a restart).
    if (!ctx.signal.aborted)
      ctx.logger.warn(
        { wsId: ctx.wsId, err: describeError(error) },
        'model stream failed after its answer was complete; its usage is not counted',
      );
  }
  const { calls, finishReason, reasoning, providerData } = call;
  if (finishReason === 'length' && calls.length > 0) {
    ctx.logger.warn({ wsId: ctx.wsId, dropped: calls.length }, 'response truncated; partial tool calls discarded');
    calls.length = 0;
  }
  if (!call.ended) ctx.host.emit({ type: 'model-call-end', finishReason });
  if (call.committed !== undefined) return { message: call.committed, finishReason, committed: true };
  const message: AssistantMessage = { role: 'assistant', content: partial.text };
  if (calls.length > 0) message.toolCalls = calls;
  if (reasoning) message.reasoning = reasoning;
  if (providerData !== undefined) message.providerData = providerData;
  return { message, finishReason, committed: false };
}

/** What one call has streamed so far, besides its text. */
interface CallState {
  reasoning: string;
  calls: ToolCall[];
  finishReason: FinishReason;
  providerData: unknown;
  /** `model-call-end` was emitted. */
  ended: boolean;
  /** `text-end` arrived: nothing but tool calls (when its reason says so), usage and the stream's end can follow. */
  textEnded: boolean;
  /** The complete answer as committed at the stop reason. */
  committed: AssistantMessage | undefined;
}

/** The call's answer is complete: its text ended with no tool call to come. */
function answered(call: CallState): boolean {
  return call.textEnded && call.finishReason !== 'tool-calls' && call.calls.length === 0;
}

/** No tool call is owed: the finish reason does not ask for one and none arrived. */
function owesNoTool(call: CallState): boolean {
  return call.finishReason !== 'tool-calls' && call.calls.length === 0;
}

async function applyPart(
  ctx: TurnContext,
  call: CallState,
  partial: PartialText,
  part: ModelStreamPart,
): Promise<void> {
  switch (part.type) {
    case 'text-delta':
      partial.text += part.text;
      ctx.host.recordPartial?.(partial.text);
      ctx.host.emit({ type: 'text-delta', text: part.text });
      return;
    case 'reasoning-delta':
      call.reasoning += part.text;
      ctx.host.emit({ type: 'reasoning-delta', text: part.text });
      return;
    case 'tool-call':
      call.calls.push(normalizeCall(part.call, call.calls.length));
      return;
    case 'text-end':
      // The text is complete: the thread's final edit need not wait for the usage chunk and the stream's end.
      call.textEnded = true;
      call.finishReason = part.finishReason;
      if (part.providerData !== undefined) call.providerData = part.providerData;
      return endOfText(ctx, call, partial);
    case 'finish':
      call.finishReason = part.finishReason;
      if (part.providerData !== undefined) call.providerData = part.providerData;
      await endOfText(ctx, call, partial);
      if (part.usage) await ctx.host.addUsage(part.usage, ctx.model.model);
      return;
  }
}

/**
 * The call's text is complete. When no tool call is owed it is the turn's answer: it is committed first (the
 * *answered* commit point), so a kill after the final edit never makes a restart answer it again; then subscribers are
 * told, and the final edit starts.
 */
async function endOfText(ctx: TurnContext, call: CallState, partial: PartialText): Promise<void> {
  if (call.ended) return;
  call.ended = true;
  const complete = owesNoTool(call) && ctx.host.answered !== undefined;
  if (complete) {
    const message: AssistantMessage = { role: 'assistant', content: partial.text };
    if (call.reasoning) message.reasoning = call.reasoning;
    if (call.providerData !== undefined) message.providerData = call.providerData;
    try {
      await ctx.host.answered?.(message);
    } catch (error) {
      throw isDurableWriteError(error) ? error : new DurableWriteError('the answer', error);
    }
    call.committed = message;
  }
  ctx.host.emit(
    complete
      ? { type: 'model-call-end', finishReason: call.finishReason, answered: true }
      : { type: 'model-call-end', finishReason: call.finishReason },
  );
}

/** Stands in for a missing or non-string tool name, so the history stays valid for every provider. */
export const UNNAMED_TOOL = 'unnamed_tool';

/** Text of a field that should be a string but arrived as something else from a model or server. */
function asText(value: unknown): string {
  if (typeof value === 'string') return value;
  if (value === undefined || value === null) return '';
  return typeof value === 'object' ? JSON.stringify(value) : String(value as number | boolean);
}

/**
 * Local models send empty ids, padded or missing names and non-string arguments; repair them so results
 * can be matched and the call can be answered with an error the model reads.
 */
export function normalizeCall(call: ToolCall, index: number): ToolCall {
  const id =
    (typeof call.id === 'string' ? call.id.trim() : '') || `call_${index}_${Math.random().toString(36).slice(2, 10)}`;
  const name = (typeof call.name === 'string' ? call.name.trim() : '') || UNNAMED_TOOL;
  return { id, name, arguments: asText(call.arguments as unknown) };
}
