/** Builds one model request: the system message, the history, and the tool schemas of every tool source. */
import type { Message } from '../messages.js';
import type { ModelRequest, ToolSchema } from '../providers/model-provider.js';
import type { ToolDefinition } from '../tools/tool.js';
import type { TurnContext } from './turn-types.js';

/** Tool definitions of all sources, first source wins on a name clash. */
export async function listAllTools(ctx: Pick<TurnContext, 'toolSources' | 'logger' | 'signal'>): Promise<ToolDefinition[]> {
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

export function toToolSchema(tool: ToolDefinition): ToolSchema {
  return { name: tool.name, description: tool.description, parameters: tool.parameters };
}

/** The request for the next call of this turn. */
export async function buildRequest(ctx: TurnContext): Promise<ModelRequest> {
  const [system, tools] = await Promise.all([ctx.systemPrompt(ctx.signal), listAllTools(ctx)]);
  const messages: Message[] = [{ role: 'system', content: system }, ...ctx.history];
  const request: ModelRequest = {
    model: ctx.model.model,
    messages,
    tools: tools.map(toToolSchema),
    maxTokens: ctx.model.maxTokens,
  };
  if (ctx.model.temperature !== undefined) request.temperature = ctx.model.temperature;
  return request;
}
