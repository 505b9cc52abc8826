/** Builds one model request: the system message, the history, and the tool schemas (narrowed by tool search when active). */
import type { Message } from '../messages.js';
import type { ModelRequest } from '../providers/model-provider.js';
import { TOOL_SEARCH_HINT } from '../search/tool-search.js';
import type { ToolDefinition } from '../tools/tool.js';
import { toToolSchema } from '../tools/load-tool-definitions.js';
import type { TurnContext } from './turn-types.js';
import { withAttachedImages } from './attached-images.js';

/** The built-in the provider's own web search replaces for models that have one. */
const WEB_SEARCH_NAME = 'web_search';

/** Tool definitions of all sources, first source wins on a name clash. */
export async function listAllTools(
  ctx: Pick<TurnContext, 'toolSources' | 'logger' | 'signal'>,
): Promise<ToolDefinition[]> {
  const seen = new Set<string>();
  const tools: ToolDefinition[] = [];
  for (const source of ctx.toolSources) {
    let listed: ToolDefinition[];
    try {
      listed = await source.listTools(ctx.signal);
    } catch (error) {
      ctx.signal.throwIfAborted();
      ctx.logger.warn({ err: error }, 'a tool source failed to list its tools; skipping it for this call');
      continue;
    }
    for (const tool of listed) {
      if (seen.has(tool.name)) continue;
      seen.add(tool.name);
      tools.push(tool);
    }
  }
  return tools;
}

/** The request for the next call of this turn. */
export async function buildRequest(ctx: TurnContext): Promise<ModelRequest> {
  const [system, all, history] = await Promise.all([
    ctx.systemPrompt(ctx.signal),
    listAllTools(ctx),
    withAttachedImages(ctx.history, ctx.cwd, ctx.model.supportsVision, ctx.signal),
  ]);
  const native = ctx.model.native;
  const { tools, active, deferred } = ctx.toolSearch?.select(all, { native: native?.toolSearch === true }) ?? {
    tools: all,
    active: false,
  };
  const messages: Message[] = [
    { role: 'system', content: active ? `${system}\n\n${TOOL_SEARCH_HINT}` : system },
    ...history,
  ];
  const request: ModelRequest = {
    model: ctx.model.model,
    messages,
    tools: tools.map(toToolSchema),
    maxTokens: ctx.model.maxTokens,
  };
  if (ctx.model.temperature !== undefined) request.temperature = ctx.model.temperature;
  if (deferred !== undefined) request.deferredTools = deferred;
  if (native?.webSearch === true && tools.some((tool) => tool.name === WEB_SEARCH_NAME)) request.nativeWebSearch = true;
  return request;
}
