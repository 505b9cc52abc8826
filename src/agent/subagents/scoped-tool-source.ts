/** A ToolSource narrowed to one sub-agent tool set (`agent: true` or `task_agent: true`); agents never get task or plan. */
import type { SubAgentToolSet } from '../tools/sub-agent-port.js';
import type { ToolContext, ToolDefinition, ToolPreparation, ToolResult, ToolSource } from '../tools/tool.js';

/** Tools that start agents: a sub-agent cannot spawn further agents, whatever their metadata says. */
const AGENT_SPAWNING: ReadonlySet<string> = new Set(['task', 'plan', 'tool_search']);

export function isInToolSet(definition: ToolDefinition, set: SubAgentToolSet): boolean {
  if (AGENT_SPAWNING.has(definition.name)) return false;
  return set === 'agent' ? definition.agent : definition.taskAgent;
}

export class ScopedToolSource implements ToolSource {
  /** Names seen allowed at the last listing (the turn lists tools before it prepares calls). */
  private allowed = new Set<string>();

  constructor(
    private readonly inner: ToolSource,
    private readonly set: SubAgentToolSet,
  ) {}

  async listTools(signal?: AbortSignal): Promise<ToolDefinition[]> {
    const tools = (await this.inner.listTools(signal)).filter((definition) => isInToolSet(definition, this.set));
    this.allowed = new Set(tools.map((definition) => definition.name));
    return tools;
  }

  hasTool(name: string): boolean {
    return this.allowed.has(name) && this.inner.hasTool(name);
  }

  prepare(name: string, args: Record<string, unknown>, context: ToolContext): Promise<ToolPreparation> {
    if (!this.allowed.has(name)) return Promise.resolve(notAvailable(name, this.allowed));
    return this.inner.prepare(name, args, context);
  }

  callTool(name: string, args: Record<string, unknown>, context: ToolContext): Promise<ToolResult> {
    if (!this.allowed.has(name))
      return Promise.resolve({ output: notAvailable(name, this.allowed).error as string, isError: true });
    return this.inner.callTool(name, args, context);
  }
}

function notAvailable(name: string, allowed: ReadonlySet<string>): ToolPreparation {
  const error = `Error: tool '${name}' is not available in agent mode. Available: ${[...allowed].sort().join(', ')}`;
  return {
    header: `✗ ${name}: not available to sub-agents`,
    preview: '',
    needsApproval: false,
    approvalLabel: name,
    error,
  };
}
