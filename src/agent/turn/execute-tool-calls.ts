/** The execution step: runs approved calls (up to 4 at once) with a per-call timeout; results keep input order. */
import { isAbortError } from '../../shared/abort.js';
import { traceToolCall } from '../agent-telemetry.js';
import { describeError } from '../../shared/errors.js';
import { contentText, type ToolMessage } from '../messages.js';
import type { ToolResult } from '../tools/tool.js';
import type { PreparedCall } from './prepare-tool-calls.js';
import { buildToolContext } from './tool-context.js';
import type { TurnContext } from './turn-types.js';

export const MAX_PARALLEL_TOOLS = 4;
export const CANCELLED_RESULT = 'Cancelled by user';

async function runOne(ctx: TurnContext, call: PreparedCall): Promise<ToolResult> {
  if (call.status !== 'run')
    return call.status === 'ask' ? { output: 'Not run: no decision was made.', isError: true } : call.status;
  if (call.source === undefined || call.args === undefined)
    return { output: `Error: unknown tool "${call.name}".`, isError: true };
  const untimed = call.untimed === true;
  // Sub-agents and plan reviews wait for many model calls and for people: only cancel stops them.
  const timeout = untimed ? new AbortController().signal : AbortSignal.timeout(ctx.toolTimeoutMs);
  const signal = untimed ? ctx.signal : AbortSignal.any([ctx.signal, timeout]);
  const { source, args } = call;
  try {
    return await traceToolCall(call.name, call.callId, () =>
      source.callTool(call.name, args, buildToolContext(ctx, call.callId, signal, untimed, call.name)),
    );
  } catch (error) {
    if (ctx.signal.aborted) throw error;
    if (timeout.aborted || isAbortError(error)) {
      return {
        output: `Error: ${call.name} timed out after ${Math.round(ctx.toolTimeoutMs / 1000)} s.`,
        isError: true,
      };
    }
    ctx.logger.warn({ err: error, tool: call.name }, 'tool call threw');
    return { output: `Error: ${call.name} failed: ${describeError(error)}`, isError: true };
  }
}

/**
 * Runs the batch and emits a `tool-result` per call as it finishes. Throws only when the turn is cancelled;
 * `results` (by call index) then still holds the calls that had finished, so the caller can keep them.
 */
export async function executeToolCalls(
  ctx: TurnContext,
  batch: readonly PreparedCall[],
  results: Array<ToolMessage | undefined> = new Array<ToolMessage | undefined>(batch.length),
): Promise<ToolMessage[]> {
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < batch.length) {
      const index = next++;
      const call = batch[index] as PreparedCall;
      ctx.signal.throwIfAborted();
      const result = await runOne(ctx, call);
      ctx.signal.throwIfAborted();
      const message: ToolMessage = { role: 'tool', toolCallId: call.callId, name: call.name, content: result.output };
      if (result.isError) message.isError = true;
      results[index] = message;
      ctx.host.emit({
        type: 'tool-result',
        callId: call.callId,
        name: call.name,
        output: contentText(result.output),
        isError: result.isError,
      });
    }
  };
  const workers = Array.from({ length: Math.min(MAX_PARALLEL_TOOLS, batch.length) }, () => worker());
  const settled = await Promise.allSettled(workers);
  const failure = settled.find((entry): entry is PromiseRejectedResult => entry.status === 'rejected');
  if (failure !== undefined) throw failure.reason;
  return results as ToolMessage[];
}
