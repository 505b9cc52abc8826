/** Prepares a batch of tool calls: parse arguments, find the owning source, let it build header/preview/approval facts. */
import { describeError } from '../../shared/errors.js';
import type { PreparedItem } from '../events.js';
import type { AssistantMessage, ToolCall } from '../messages.js';
import { TOOL_SEARCH_NAME, toolSearchDefinition } from '../search/tool-search.js';
import { argumentErrorPreparation, parseToolArguments } from '../tools/parse-tool-arguments.js';
import type { ToolDefinition, ToolSource } from '../tools/tool.js';
import { listAllTools } from './build-request.js';
import { UNNAMED_TOOL } from './call-model.js';
import { buildToolContext } from './tool-context.js';
import type { StoredCall, TurnContext } from './turn-types.js';

/** Arguments longer than this are not parsed or run (about 250k tokens); the model is told to split the work. */
export const MAX_TOOL_ARGUMENT_CHARS = 1_000_000;

/** What history and approval rows keep of an oversized call's arguments. */
const OMITTED_ARGUMENTS = '{}';

function isOversized(call: ToolCall): boolean {
  return call.arguments.length > MAX_TOOL_ARGUMENT_CHARS;
}

/**
 * The assistant message as it goes into the history: oversized arguments are replaced by `{}` so they are
 * not re-sent with every later request (the call itself is answered with an error).
 */
export function withStorableArguments(message: AssistantMessage): AssistantMessage {
  if (!message.toolCalls?.some(isOversized)) return message;
  return {
    ...message,
    toolCalls: message.toolCalls.map((call) => (isOversized(call) ? { ...call, arguments: OMITTED_ARGUMENTS } : call)),
  };
}

/** The error result for a call that cannot run before its arguments are even looked at. */
function rejectionOf(call: ToolCall): string | undefined {
  if (call.name === UNNAMED_TOOL)
    return 'Error: this tool call had no tool name. Call one of the tools you were given by its name.';
  if (isOversized(call)) {
    return `Error: the arguments of this ${call.name} call are too large (${call.arguments.length} characters; the limit is ${MAX_TOOL_ARGUMENT_CHARS}). Split the work into smaller calls.`;
  }
  return undefined;
}

/** One call of the batch, with its source and (later) its approval status. */
export interface PreparedCall extends StoredCall {
  source: ToolSource | undefined;
  /** The tool's primary argument, which a grant's argument glob is matched against (not stored). */
  primaryKey?: string;
}

function errorItem(call: ToolCall, message: string): PreparedItem {
  return {
    callId: call.id,
    name: call.name,
    approvalLabel: call.name,
    header: `✗ ${call.name}`,
    preview: '',
    needsApproval: false,
    error: message,
  };
}

function failed(
  call: ToolCall,
  args: Record<string, unknown> | undefined,
  source: ToolSource | undefined,
  message: string,
): PreparedCall {
  return {
    callId: call.id,
    name: call.name,
    arguments: call.arguments,
    args,
    source,
    item: errorItem(call, message),
    status: { output: message, isError: true },
  };
}

/** The source owning a tool name: the shared sources, then the workstream's `tool_search`. */
function findSource(ctx: TurnContext, name: string): ToolSource | undefined {
  return (
    ctx.toolSources.find((candidate) => candidate.hasTool(name)) ??
    (ctx.toolSearch?.hasTool(name) ? ctx.toolSearch : undefined)
  );
}

/** A call whose arguments are not valid JSON (or miss the primary key): answered with the parser's error. */
function badArguments(call: ToolCall, source: ToolSource, error: string): PreparedCall {
  const prep = argumentErrorPreparation(call.name, call.arguments, error);
  const item: PreparedItem = {
    callId: call.id,
    name: call.name,
    approvalLabel: call.name,
    header: prep.header,
    preview: prep.preview,
    needsApproval: false,
    error,
  };
  return {
    callId: call.id,
    name: call.name,
    arguments: call.arguments,
    args: undefined,
    source,
    item,
    status: { output: error, isError: true },
  };
}

/** Lets the owning source build the call's header, preview and approval facts; a thrown error becomes the result. */
async function prepareWithSource(
  ctx: TurnContext,
  call: ToolCall,
  source: ToolSource,
  args: Record<string, unknown>,
  primaryKey: string | undefined,
): Promise<PreparedCall> {
  try {
    const prep = await source.prepare(call.name, args, buildToolContext(ctx, call.id, ctx.signal));
    const item: PreparedItem = {
      callId: call.id,
      name: call.name,
      approvalLabel: prep.approvalLabel || call.name,
      header: prep.header,
      preview: prep.preview,
      needsApproval: prep.error === undefined && prep.needsApproval,
    };
    const common = { callId: call.id, name: call.name, arguments: call.arguments, args, source, item };
    if (prep.error !== undefined) {
      item.error = prep.error;
      return { ...common, status: { output: prep.error, isError: true } };
    }
    const prepared: PreparedCall = { ...common, status: item.needsApproval ? 'ask' : 'run' };
    if (prep.untimed === true) prepared.untimed = true;
    if (primaryKey !== undefined) prepared.primaryKey = primaryKey;
    return prepared;
  } catch (error) {
    ctx.signal.throwIfAborted();
    ctx.logger.warn({ err: error, tool: call.name }, 'tool preparation failed');
    return failed(call, args, source, `Error: could not prepare ${call.name}: ${describeError(error)}`);
  }
}

async function prepareOne(
  ctx: TurnContext,
  call: ToolCall,
  definitions: ReadonlyMap<string, ToolDefinition>,
): Promise<PreparedCall> {
  const rejection = rejectionOf(call);
  if (rejection !== undefined) {
    return failed(
      { ...call, arguments: isOversized(call) ? OMITTED_ARGUMENTS : call.arguments },
      undefined,
      undefined,
      rejection,
    );
  }
  const source = findSource(ctx, call.name);
  if (source === undefined) {
    return failed(
      call,
      undefined,
      undefined,
      `Error: unknown tool "${call.name}". Use one of the tools you were given.`,
    );
  }
  const primaryKey = definitions.get(call.name)?.primaryKey;
  const parsed = parseToolArguments(call.arguments, primaryKey);
  if (!parsed.ok) return badArguments(call, source, parsed.error);
  return prepareWithSource(ctx, call, source, parsed.value, primaryKey);
}

/** Prepares every call of one assistant message, in order. Never throws except on abort. */
export async function prepareToolCalls(ctx: TurnContext, calls: readonly ToolCall[]): Promise<PreparedCall[]> {
  const all = await listAllTools(ctx);
  const definitions = new Map(all.map((tool) => [tool.name, tool] as const));
  if (ctx.toolSearch !== undefined) definitions.set(TOOL_SEARCH_NAME, toolSearchDefinition([]));
  const prepared: PreparedCall[] = [];
  for (const call of calls) {
    prepared.push(await prepareOne(ctx, call, definitions));
    // Lenient: a deferred tool called by its exact name (never searched for) stays visible from now on.
    if (definitions.has(call.name)) ctx.toolSearch?.noteCalled(call.name, all);
  }
  return prepared;
}

/** Rebuilds prepared calls from an approval row (after a restart). */
export function restorePreparedCalls(ctx: TurnContext, stored: readonly StoredCall[]): PreparedCall[] {
  return stored.map((call) => ({ ...call, source: findSource(ctx, call.name) }));
}
