/** One workstream's tool search: picks the tools each request carries, and serves the synthetic `tool_search` tool. */
import { contentText, type Message } from '../messages.js';
import type { ToolContext, ToolDefinition, ToolPreparation, ToolResult, ToolSource } from '../tools/tool.js';
import {
  ExpandedTools,
  TOOL_SEARCH_NAME,
  formatSearchResult,
  isToolSearchActive,
  namesInSearchResult,
  partitionTools,
  searchDeferred,
  toolSearchDefinition,
  type ToolSearchSettings,
} from './tool-search.js';

/** The tools one model call carries, and whether client-side search is active for it. */
export interface ToolSelection {
  tools: ToolDefinition[];
  active: boolean;
  /** Native search: the tools the provider loads on demand (`defer_loading`); absent otherwise. */
  deferred?: string[];
}

/** Lists every tool of every source (the same list a request is built from). */
export type ListAllTools = (signal: AbortSignal) => Promise<ToolDefinition[]>;

function errorPreparation(message: string, query = ''): ToolPreparation {
  return {
    header: `✗ ${TOOL_SEARCH_NAME}${query ? `: ${query.slice(0, 80)}` : ''}`,
    preview: '',
    needsApproval: false,
    approvalLabel: TOOL_SEARCH_NAME,
    error: message,
  };
}

function queryOf(args: Record<string, unknown>): string {
  const query = args['query'];
  return typeof query === 'string' ? query.trim() : '';
}

/**
 * Per-workstream state: the ordered expanded set (kept in memory and rebuilt from the history on restore).
 * The expanded names survive search turning off (auto mode below the threshold) and come back with it.
 */
export class WorkstreamToolSearch implements ToolSource {
  readonly expanded = new ExpandedTools();
  readonly #settings: ToolSearchSettings;
  readonly #listAll: ListAllTools;

  constructor(settings: ToolSearchSettings, listAll: ListAllTools) {
    this.#settings = settings;
    this.#listAll = listAll;
  }

  /**
   * Inactive: every tool. Active with a model that searches natively: every tool, the deferred ones named for
   * `defer_loading` (the provider's own search replaces `tool_search` and its hint). Active otherwise: always-on +
   * expanded (discovery order) + `tool_search`.
   */
  select(all: readonly ToolDefinition[], options: { native?: boolean } = {}): ToolSelection {
    if (!isToolSearchActive(this.#settings, all.length)) return { tools: [...all], active: false };
    const { alwaysOn, deferred } = partitionTools(all);
    if (options.native === true) {
      return deferred.length === 0
        ? { tools: [...all], active: false }
        : { tools: [...all], active: false, deferred: deferred.map((tool) => tool.name) };
    }
    return { tools: [...alwaysOn, ...this.expanded.visible(deferred), toolSearchDefinition(deferred)], active: true };
  }

  /** A deferred tool the model called by its exact name without searching first becomes visible from now on. */
  noteCalled(name: string, all: readonly ToolDefinition[]): void {
    if (!isToolSearchActive(this.#settings, all.length)) return;
    this.expanded.expand([name], partitionTools(all).deferred);
  }

  /** Rebuilds the expanded set from a stored history: tools found by earlier searches and deferred tools called. */
  restoreFrom(history: readonly Message[]): void {
    for (const message of history) {
      if (message.role === 'tool' && message.name === TOOL_SEARCH_NAME && !message.isError)
        this.expanded.remember(namesInSearchResult(contentText(message.content)));
      if (message.role === 'assistant') this.expanded.remember((message.toolCalls ?? []).map((call) => call.name));
    }
  }

  /** The definition is added by `select`, not listed here. */
  listTools(): Promise<ToolDefinition[]> {
    return Promise.resolve([]);
  }

  hasTool(name: string): boolean {
    return name === TOOL_SEARCH_NAME;
  }

  /** Empty query or inactive search → error; never needs approval. */
  async prepare(_name: string, args: Record<string, unknown>, context: ToolContext): Promise<ToolPreparation> {
    const query = queryOf(args);
    if (query === '') return errorPreparation('Error: no query provided');
    const all = await this.#listAll(context.signal);
    if (!isToolSearchActive(this.#settings, all.length)) return errorPreparation('Tool search is not active.', query);
    return {
      header: `⚙ ${TOOL_SEARCH_NAME}: ${query.slice(0, 80)}`,
      preview: '',
      needsApproval: false,
      approvalLabel: TOOL_SEARCH_NAME,
    };
  }

  /** Searches the deferred tools, expands the found ones, returns the list. */
  async callTool(_name: string, args: Record<string, unknown>, context: ToolContext): Promise<ToolResult> {
    const query = queryOf(args);
    if (query === '') return { output: 'Error: no query provided', isError: true };
    const all = await this.#listAll(context.signal);
    if (!isToolSearchActive(this.#settings, all.length)) return { output: 'Tool search is not active.', isError: true };
    const { deferred } = partitionTools(all);
    const found = searchDeferred(deferred, query, this.#settings.maxResults, new Set(this.expanded.names()));
    this.expanded.expand(
      found.map((tool) => tool.name),
      deferred,
    );
    return { output: formatSearchResult(found), isError: false };
  }
}
