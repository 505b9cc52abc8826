/** Public surface of the built-in tools: definitions, argument parsing, truncation and the ToolSource. */
import { BuiltinToolSource } from './builtin-tool-source.js';
import { bashHandler } from './builtin/bash.js';
import { editFileHandler } from './builtin/edit_file.js';
import { manHandler } from './builtin/man.js';
import { createMathHandler } from './builtin/math.js';
import { readFileHandler } from './builtin/read_file.js';
import { searchHandler } from './builtin/search.js';
import { createWebFetchHandler } from './builtin/web_fetch.js';
import { createWebSearchHandler } from './builtin/web_search.js';
import { planHandler } from './builtin/plan.js';
import { taskHandler } from './builtin/task.js';
import { createWatchHandler } from './builtin/watch.js';
import { writeFileHandler } from './builtin/write_file.js';
import type { WatchStore } from '../../storage/watch-store.js';
import { loadToolDefinitions } from './load-tool-definitions.js';
import type { ToolDefinition, ToolHandler } from './tool.js';

export type { ToolContext, ToolDefinition, ToolHandler, ToolPreparation, ToolResult, ToolSource } from './tool.js';
export type { PlanReviewDecision, SubAgentPort, SubAgentRequest, SubAgentResult, SubAgentToolSet } from './sub-agent-port.js';
export { BuiltinToolSource } from './builtin-tool-source.js';
export {
  DEFAULT_TOOLS_DIRECTORY,
  deriveToolSets,
  loadToolDefinitions,
  toToolSchema,
  type LoadToolDefinitionsOptions,
  type ToolDefinitionSet,
} from './load-tool-definitions.js';
export { argumentErrorPreparation, parseToolArguments } from './parse-tool-arguments.js';
export { truncateOutput } from './truncate-output.js';
export { publicAddressPolicy, type AddressPolicy } from './ssrf-guard.js';

export interface BuiltinToolSourceOptions {
  /** Already loaded definitions; when absent they are read from `toolsDirectory` (default: the repo's tools/). */
  definitions?: readonly ToolDefinition[];
  toolsDirectory?: string;
  /** `tools.tavily_api_key`; without it web_search answers with a clear configuration error. */
  tavilyApiKey?: string;
  /** Tavily search endpoint override (tests use a local fake). */
  tavilySearchUrl?: string;
  /** Lets web_fetch reach private/loopback addresses. Tests only. */
  allowPrivateAddresses?: boolean;
  /** Python interpreter for the math tool (default `python3`). */
  pythonCommand?: string;
  /** The `watches` store for the watch tool (without it the tool answers "storage unavailable"). */
  watchStore?: WatchStore;
  signal?: AbortSignal;
}

/** The handlers of the implemented built-in tools, by tool name. */
export function createBuiltinHandlers(options: BuiltinToolSourceOptions = {}): Map<string, ToolHandler> {
  const handlers: ToolHandler[] = [
    bashHandler,
    editFileHandler,
    manHandler,
    createMathHandler(options.pythonCommand === undefined ? {} : { pythonCommand: options.pythonCommand }),
    readFileHandler,
    searchHandler,
    createWebFetchHandler(options.allowPrivateAddresses === true ? { allowPrivateAddresses: true } : {}),
    createWebSearchHandler({
      ...(options.tavilyApiKey === undefined ? {} : { apiKey: options.tavilyApiKey }),
      ...(options.tavilySearchUrl === undefined ? {} : { endpoint: options.tavilySearchUrl }),
    }),
    writeFileHandler,
    taskHandler,
    planHandler,
    createWatchHandler(options.watchStore === undefined ? {} : { store: options.watchStore }),
  ];
  return new Map(handlers.map((handler) => [handler.name, handler]));
}

/** Loads the definitions (unless given) and wires the built-in handlers into a BuiltinToolSource. */
export async function createBuiltinToolSource(options: BuiltinToolSourceOptions = {}): Promise<BuiltinToolSource> {
  const definitions =
    options.definitions ??
    (
      await loadToolDefinitions({
        ...(options.toolsDirectory === undefined ? {} : { directory: options.toolsDirectory }),
        ...(options.signal === undefined ? {} : { signal: options.signal }),
      })
    ).all;
  return new BuiltinToolSource(definitions, createBuiltinHandlers(options));
}
