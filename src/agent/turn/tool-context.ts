/** Builds the per-call ToolContext a tool source receives. */
import type { ToolContext } from '../tools/tool.js';
import { networkPermissionsFor } from './network-permissions.js';
import type { TurnContext } from './turn-types.js';

/** Roughly a quarter of the context window, in characters (4 chars per token), within sane bounds. */
export function outputLimitFor(contextWindow: number): number {
  return Math.min(200_000, Math.max(4_000, Math.floor(contextWindow)));
}

export function buildToolContext(
  ctx: TurnContext,
  callId: string,
  signal: AbortSignal,
  untimed = false,
  toolName?: string,
): ToolContext {
  const context: ToolContext = {
    signal,
    workstreamId: ctx.wsId,
    turnId: ctx.turnId,
    cwd: ctx.cwd,
    timeoutMs: untimed ? 0 : ctx.toolTimeoutMs,
    outputLimit: outputLimitFor(ctx.model.contextWindow),
    supportsVision: ctx.model.supportsVision,
    readFiles: ctx.readFiles,
    logger: ctx.logger,
    onOutput: (chunk: string) => ctx.host.emit({ type: 'tool-output-chunk', callId, chunk }),
    askModel: (prompt: string, askSignal: AbortSignal) => askModel(ctx, prompt, askSignal),
  };
  if (ctx.subAgents !== undefined) context.subAgents = ctx.subAgents(ctx, callId);
  if (toolName !== undefined) context.toolName = toolName;
  const network = networkPermissionsFor(ctx, callId);
  if (network !== undefined) context.network = network;
  return context;
}

/** A plain side call to the workstream's model without tools (web_fetch extraction). */
async function askModel(ctx: TurnContext, prompt: string, signal: AbortSignal): Promise<string> {
  let text = '';
  const request = {
    model: ctx.model.model,
    messages: [{ role: 'user' as const, content: prompt }],
    tools: [],
    maxTokens: ctx.model.maxTokens,
  };
  for await (const part of ctx.streamModel(ctx.model.provider, request, { signal })) {
    if (part.type === 'text-delta') text += part.text;
  }
  return text;
}
