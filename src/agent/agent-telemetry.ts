/** Span and metric wrappers for the agent's seams: turn, model call, tool call, MCP request, approval wait. */
import type { Attributes } from '@opentelemetry/api';
import { isAbortError } from '../shared/abort.js';
import { SPAN, markFailed, metrics, recordFailure, secondsSince, startSpan, withSpan } from '../shared/telemetry.js';
import type { ModelProvider, ModelStreamPart } from './providers/model-provider.js';
import type { ToolResult } from './tools/tool.js';

/** One turn: a span with its end reason, and the turn latency histogram. */
export function traceTurn<T extends { reason: string }>(attributes: Attributes, run: () => Promise<T>): Promise<T> {
  const started = performance.now();
  return withSpan(SPAN.turn, attributes, async (span) => {
    const outcome = await run();
    span.setAttribute('sandpiper.turn.reason', outcome.reason);
    if (outcome.reason === 'error') markFailed(span, 'turn ended with an error');
    metrics().turnEnded(secondsSince(started), outcome.reason);
    return outcome;
  });
}

/** One tool call: a span named after the tool, its duration and whether it failed (an `isError` result or a throw). */
export function traceToolCall(tool: string, callId: string, run: () => Promise<ToolResult>): Promise<ToolResult> {
  const started = performance.now();
  return withSpan(SPAN.toolCall, { 'sandpiper.tool.name': tool, 'sandpiper.tool.call_id': callId }, async (span) => {
    try {
      const result = await run();
      if (result.isError) markFailed(span, 'tool returned an error');
      metrics().toolCall(tool, secondsSince(started), result.isError === true);
      return result;
    } catch (error) {
      metrics().toolCall(tool, secondsSince(started), true);
      throw error;
    }
  });
}

/** One request to an MCP server: a span, and the call counter by server and outcome (`ok`, an error kind, `aborted`). */
export function traceMcpCall<T>(server: string, run: () => Promise<T>): Promise<T> {
  return withSpan(SPAN.mcpCall, { 'sandpiper.mcp.server': server }, async (span) => {
    try {
      const value = await run();
      metrics().mcpCall(server, 'ok');
      return value;
    } catch (error) {
      const kind = (error as { kind?: unknown }).kind;
      const outcome = isAbortError(error) ? 'aborted' : typeof kind === 'string' ? kind : 'error';
      span.setAttribute('sandpiper.mcp.outcome', outcome);
      metrics().mcpCall(server, outcome);
      throw error;
    }
  });
}

/** The wait for an approval decision, as a span (its duration is the time people took). */
export function traceApprovalWait<T>(approvalId: string, run: () => Promise<T>): Promise<T> {
  return withSpan(SPAN.approvalWait, { 'sandpiper.approval.id': approvalId }, () => run());
}

type Usage = { inputTokens: number; outputTokens: number };

/**
 * A provider whose every stream is one `model_call` span with the token counts of its `finish` part, and the model
 * latency and token metrics (by model name). The stream parts pass through unchanged.
 */
export function instrumentProvider(provider: ModelProvider, alias: string): ModelProvider {
  return {
    id: provider.id,
    capabilities: (model) => provider.capabilities(model),
    stream: (request, options) => tracedStream(provider, alias, request, options),
  };
}

async function* tracedStream(
  provider: ModelProvider,
  alias: string,
  ...args: Parameters<ModelProvider['stream']>
): AsyncGenerator<ModelStreamPart> {
  const [request] = args;
  const span = startSpan(SPAN.modelCall, {
    'gen_ai.system': provider.id,
    'gen_ai.request.model': request.model,
    'sandpiper.model.alias': alias,
  });
  const started = performance.now();
  let usage: Usage | undefined;
  let outcome = 'ok';
  try {
    for await (const part of provider.stream(...args)) {
      if (part.type === 'finish') usage = part.usage;
      yield part;
    }
  } catch (error) {
    outcome = isAbortError(error) ? 'aborted' : 'error';
    recordFailure(span, error);
    throw error;
  } finally {
    if (usage)
      span.setAttributes({
        'gen_ai.usage.input_tokens': usage.inputTokens,
        'gen_ai.usage.output_tokens': usage.outputTokens,
      });
    span.end();
    metrics().modelCall(request.model, secondsSince(started), outcome, usage);
  }
}
