/** Client-side tool search: activation rule, built-in/deferred partition, the synthetic `tool_search` tool, BM25 search, result text. */
import type { ToolDefinition } from '../tools/tool.js';
import { sharedDeferredIndex, type DeferredToolIndex } from './deferred-index.js';

/** Name of the synthetic search tool. */
export const TOOL_SEARCH_NAME = 'tool_search';

/** The `tools.search*` settings. */
export interface ToolSearchSettings {
  mode: 'auto' | 'on' | 'off';
  /** With `auto`, search is active when the total tool count is strictly greater than this. */
  threshold: number;
  /** Tools returned per search. */
  maxResults: number;
}

export const DEFAULT_TOOL_SEARCH_SETTINGS: Readonly<ToolSearchSettings> = Object.freeze({
  mode: 'auto',
  threshold: 20,
  maxResults: 5,
});

/** Appended (after a blank line) to the system message while client-side search is active. */
export const TOOL_SEARCH_HINT =
  'More tools are available than are listed. If none of your tools fits the task, call tool_search with a few keywords ' +
  'to discover more; the tools it finds become available for the rest of this conversation.';

export const NO_MATCH_TEXT = 'No matching tools found. Try a different search query.';

const MCP_SERVER_PREFIX = /^mcp__(.+?)__/;

/** `on`, or `auto` with strictly more tools than the threshold; `off` never. */
export function isToolSearchActive(settings: ToolSearchSettings, totalTools: number): boolean {
  if (settings.mode === 'on') return true;
  if (settings.mode === 'off') return false;
  return totalTools > settings.threshold;
}

/** Built-ins (everything outside MCP: built-in tools, read_resource, use_prompt) are never deferred. */
export function isAlwaysOnTool(name: string): boolean {
  return !name.startsWith('mcp__');
}

export interface ToolPartition {
  alwaysOn: ToolDefinition[];
  deferred: ToolDefinition[];
}

/** Splits tools into always-on and deferred, keeping the input order in each. */
export function partitionTools(
  tools: readonly ToolDefinition[],
  alwaysOn: (name: string) => boolean = isAlwaysOnTool,
): ToolPartition {
  const partition: ToolPartition = { alwaysOn: [], deferred: [] };
  for (const tool of tools) (alwaysOn(tool.name) ? partition.alwaysOn : partition.deferred).push(tool);
  return partition;
}

function countLabel(server: string, count: number): string {
  return `${server} (${count} ${count === 1 ? 'tool' : 'tools'})`;
}

/** `github (3 tools), slack (1 tool)`: deferred counts per MCP server, sorted, then `other (N tools)` for the rest. */
export function summarizeDeferred(deferred: readonly ToolDefinition[]): string {
  const perServer = new Map<string, number>();
  let other = 0;
  for (const tool of deferred) {
    const server = MCP_SERVER_PREFIX.exec(tool.name)?.[1];
    if (server === undefined) other++;
    else perServer.set(server, (perServer.get(server) ?? 0) + 1);
  }
  const parts = [...perServer.keys()].sort().map((server) => countLabel(server, perServer.get(server) ?? 0));
  if (other > 0) parts.push(countLabel('other', other));
  return parts.join(', ');
}

/** The synthetic `tool_search` definition; its description names the servers whose tools can be found. */
export function toolSearchDefinition(deferred: readonly ToolDefinition[]): ToolDefinition {
  let description =
    'Search for additional tools by keyword. Returns matching tools and makes them available to call. ' +
    'Use it when none of your current tools fits the task.';
  if (deferred.length > 0) description += ` Available tool servers: ${summarizeDeferred(deferred)}.`;
  return {
    name: TOOL_SEARCH_NAME,
    description,
    parameters: {
      type: 'object',
      properties: {
        query: {
          type: 'string',
          description: 'Keywords describing the tool you need (e.g. "read file", "github issue").',
        },
      },
      required: ['query'],
    },
    agent: false,
    taskAgent: false,
    autoApprove: true,
    primaryKey: 'query',
  };
}

/**
 * Up to `maxResults` deferred tools matching `query`, best first, skipping the ones already expanded. The index
 * is rebuilt only when the catalog changed since the last search.
 */
export function searchDeferred(
  deferred: readonly ToolDefinition[],
  query: string,
  maxResults: number,
  expanded: ReadonlySet<string>,
  indexes: DeferredToolIndex = sharedDeferredIndex,
): ToolDefinition[] {
  const index = indexes.indexFor(deferred);
  const found: ToolDefinition[] = [];
  for (const hit of index.search(query, maxResults + expanded.size)) {
    const tool = deferred[hit.index];
    if (tool === undefined || expanded.has(tool.name)) continue;
    found.push(tool);
    if (found.length >= maxResults) break;
  }
  return found;
}

/** The tool result the model sees for a search. */
export function formatSearchResult(found: readonly ToolDefinition[]): string {
  if (found.length === 0) return NO_MATCH_TEXT;
  const lines = [
    `Found ${found.length} matching tool(s):`,
    ...found.map((tool) => `- **${tool.name}**: ${tool.description}`),
  ];
  return `${lines.join('\n')}\n\nThese tools are now available: call them directly by name.`;
}

/** Names listed in a `formatSearchResult` text (to rebuild the expanded set from a stored history). */
export function namesInSearchResult(text: string): string[] {
  const names: string[] = [];
  for (const match of text.matchAll(/^- \*\*(.+?)\*\*: /gm)) if (match[1] !== undefined) names.push(match[1]);
  return names;
}

/** The ordered set of tools a workstream has discovered; names stay even while their tools are gone or search is off. */
export class ExpandedTools {
  readonly #names: string[] = [];

  /** Discovery order. */
  names(): readonly string[] {
    return this.#names;
  }

  has(name: string): boolean {
    return this.#names.includes(name);
  }

  /** Adds deferred names not yet expanded (unknown and always-on names are ignored); returns the newly added definitions. */
  expand(names: readonly string[], deferred: readonly ToolDefinition[]): ToolDefinition[] {
    const byName = new Map(deferred.map((tool) => [tool.name, tool] as const));
    const added: ToolDefinition[] = [];
    for (const name of names) {
      const tool = byName.get(name);
      if (tool === undefined || this.has(name)) continue;
      this.#names.push(name);
      added.push(tool);
    }
    return added;
  }

  /** Remembers names without checking them (restoring from history); they show once their tools exist. */
  remember(names: readonly string[]): void {
    for (const name of names)
      if (!this.has(name) && !isAlwaysOnTool(name) && name !== TOOL_SEARCH_NAME) this.#names.push(name);
  }

  /** The expanded tools that still exist, in discovery order. */
  visible(deferred: readonly ToolDefinition[]): ToolDefinition[] {
    const byName = new Map(deferred.map((tool) => [tool.name, tool] as const));
    return this.#names.flatMap((name) => byName.get(name) ?? []);
  }
}
