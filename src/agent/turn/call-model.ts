/** One model call: streams parts into events, collects the assistant message, reports usage and finish. */
import { describeError } from '../../shared/errors.js';
import type { AssistantMessage, ToolCall } from '../messages.js';
import type { FinishReason, ModelRequest, ModelStreamPart } from '../providers/model-provider.js';
import type { TurnContext } from './turn-types.js';

export interface ModelCallResult {
  message: AssistantMessage;
  finishReason: FinishReason;
}

/** Text streamed so far, kept by the caller so a cancelled call can keep its partial answer. */
export interface PartialText {
  text: string;
}

/**
 * Streams one call through `ctx.streamModel` (which retries), emitting `text-delta` / `reasoning-delta` and
 * `model-call-end` (as soon as the stream's `text-end` part arrives, or its `finish` when there was none). Throws
 * provider errors once retries are exhausted, and abort errors on cancel, except once the answer was complete.
 */
export async function callModel(ctx: TurnContext, request: ModelRequest, partial: PartialText): Promise<ModelCallResult> {
  const call: CallState = { reasoning: '', calls: [], finishReason: 'other', providerData: undefined, ended: false, textEnded: false };
  partial.text = '';
  ctx.host.recordPartial?.('');
  const stream = ctx.streamModel(ctx.model.provider, request, {
    signal: ctx.signal,
    onRetry: ({ attempt, delayMs }) => ctx.logger.warn({ wsId: ctx.wsId, attempt, delayMs }, 'model call failed; retrying'),
  });
  try {
    for await (const part of stream) {
      ctx.signal.throwIfAborted();
      await applyPart(ctx, call, partial, part);
    }
    ctx.signal.throwIfAborted();
  } catch (error) {
    if (!answered(call)) throw error;
    // Only the usage and the stream's end were still to come: a stop, a shutdown or a dropped connection now leaves
    // the answer as it was shown in full (it is not answered a second time after a restart).
    if (!ctx.signal.aborted) ctx.logger.warn({ wsId: ctx.wsId, err: describeError(error) }, 'model stream failed after its answer was complete; its usage is not counted');
  }
  const { calls, finishReason, reasoning, providerData } = call;
  if (finishReason === 'length' && calls.length > 0) {
    ctx.logger.warn({ wsId: ctx.wsId, dropped: calls.length }, 'response truncated; partial tool calls discarded');
    calls.length = 0;
  }
  if (!call.ended) ctx.host.emit({ type: 'model-call-end', finishReason });
  const message: AssistantMessage = { role: 'assistant', content: partial.text };
  if (calls.length > 0) message.toolCalls = calls;
  if (reasoning) message.reasoning = reasoning;
  if (providerData !== undefined) message.providerData = providerData;
  return { message, finishReason };
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
}

/** The call's answer is complete: its text ended with no tool call to come. */
function answered(call: CallState): boolean {
  return call.textEnded && call.finishReason !== 'tool-calls' && call.calls.length === 0;
}

async function applyPart(ctx: TurnContext, call: CallState, partial: PartialText, part: ModelStreamPart): Promise<void> {
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
      return endOfText(ctx, call, part.finishReason);
    case 'finish':
      call.finishReason = part.finishReason;
      call.providerData = part.providerData;
      await endOfText(ctx, call, part.finishReason);
      if (part.usage) await ctx.host.addUsage(part.usage);
      return;
  }
}

/**
 * Tells subscribers the call's text is complete. What follows (the rest of the stream read, the layers unwinding, the
 * answer stored, the turn ending) waits two turns of the event loop, so the final edit the event starts is on its
 * socket first: its write runs from an immediate set after this point, and work resumed by an earlier immediate would
 * run before it (ADR 0032).
 */
async function endOfText(ctx: TurnContext, call: CallState, finishReason: FinishReason): Promise<void> {
  if (call.ended) return;
  call.ended = true;
  ctx.host.emit({ type: 'model-call-end', finishReason });
  await new Promise((resolve) => setImmediate(() => setImmediate(resolve)));
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
  const id = (typeof call.id === 'string' ? call.id.trim() : '') || `call_${index}_${Math.random().toString(36).slice(2, 10)}`;
  const name = (typeof call.name === 'string' ? call.name.trim() : '') || UNNAMED_TOOL;
  return { id, name, arguments: asText(call.arguments as unknown) };
}
