/** Public surface of the built-in tools: definitions, argument parsing, truncation and the ToolSource. */
import { BuiltinToolSource, type ToolContainment } from './builtin-tool-source.js';
import { bashHandler } from './builtin/bash.js';
import { editFileHandler } from './builtin/edit_file.js';
import { manHandler } from './builtin/man.js';
import { createMathHandler } from './builtin/math.js';
import { createMemoryHandler } from './builtin/memory.js';
import { createNotifyHandler } from './builtin/notify.js';
import { readFileHandler } from './builtin/read_file.js';
import { createRecallHandler } from './builtin/recall.js';
import { searchHandler } from './builtin/search.js';
import { createWebFetchHandler } from './builtin/web_fetch.js';
import { createWebSearchHandler } from './builtin/web_search.js';
import { planHandler } from './builtin/plan.js';
import { taskHandler } from './builtin/task.js';
import { createWatchHandler } from './builtin/watch.js';
import { writeFileHandler } from './builtin/write_file.js';
import { loadToolDefinitions } from './load-tool-definitions.js';
import type { Stores } from '../../storage/stores.js';
import type { ToolDefinition, ToolHandler } from './tool.js';

export type { ToolContext, ToolDefinition, ToolHandler, ToolPreparation, ToolResult, ToolSource } from './tool.js';
export type {
  PlanReviewDecision,
  SubAgentPort,
  SubAgentRequest,
  SubAgentResult,
  SubAgentToolSet,
} from './sub-agent-port.js';
export { BuiltinToolSource, type ToolContainment } from './builtin-tool-source.js';
export { createToolAccess, type ToolAccess } from './tool-access.js';
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
  /** Read roots, protected paths and the process sandbox (default: the workspace only, no sandbox). */
  containment?: ToolContainment;
  /** Storage behind memory, recall, notify and watch; without it those tools answer that storage is not configured. */
  stores?: Pick<Stores, 'memories' | 'conversations' | 'workstreams' | 'services' | 'watches' | 'users'>;
  /** `memory.max_content`. */
  memoryMaxContent?: number;
  /** The `Authorization` header notify sends to a channel gateway (a minted service token), if any. */
  notifyAuthorization?: () => Promise<string | undefined>;
  /** Pauses between notify attempts (default 1 s, 3 s; tests shorten them). */
  notifyRetryDelaysMs?: readonly number[];
  signal?: AbortSignal;
}

/** A handler for a tool whose storage is missing: every call says so. */
function unconfigured(name: string): ToolHandler {
  const error = `Error: ${name} is not available: no storage is configured`;
  return {
    name,
    prepare: () => ({
      header: `✗ ${name}: not available`,
      preview: '',
      needsApproval: false,
      approvalLabel: name,
      error,
    }),
    execute: () => Promise.resolve({ output: error, isError: true }),
  };
}

/** memory, recall and notify: they need the stores (and notify a token). */
function storageHandlers(options: BuiltinToolSourceOptions): ToolHandler[] {
  const stores = options.stores;
  if (stores === undefined) return ['memory', 'notify', 'recall', 'watch'].map(unconfigured);
  const ownerOf = async (wsId: string): Promise<string> => (await stores.workstreams.get(wsId))?.userId ?? '';
  return [
    createMemoryHandler({
      memories: stores.memories,
      ownerOf,
      userOf: async (userId) => {
        const user = await stores.users.getUser(userId);
        return user === undefined ? undefined : { username: user.username, isAdmin: user.isAdmin };
      },
      ...(options.memoryMaxContent === undefined ? {} : { maxContent: options.memoryMaxContent }),
    }),
    createNotifyHandler({
      services: stores.services,
      ownerOf: async (wsId) => {
        const userId = await ownerOf(wsId);
        const user = userId === '' ? undefined : await stores.users.getUser(userId);
        if (user === undefined) return undefined;
        return { username: user.username, links: await stores.users.listLinks(userId) };
      },
      authorization: options.notifyAuthorization ?? (() => Promise.resolve(undefined)),
      ...(options.notifyRetryDelaysMs === undefined ? {} : { retryDelaysMs: options.notifyRetryDelaysMs }),
    }),
    createRecallHandler({ conversations: stores.conversations, ownerOf }),
    createWatchHandler({ store: stores.watches }),
  ];
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
    ...storageHandlers(options),
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
  return new BuiltinToolSource(definitions, createBuiltinHandlers(options), options.containment);
}
