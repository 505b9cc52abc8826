/**
 * The `memory` tool: save, search (BM25), delete and list structured memories the workstream may see. A save or delete
 * defaults to the owner's `user` scope (`workstream` without an owner); a `global` one reaches every user's model
 * calls, so only an admin's workstream may write it, and only after the admin approves a card (ADR 0035).
 */
import { describeError } from '../../../shared/errors.js';
import type {
  MemoryRow,
  MemoryScope,
  MemoryStore,
  MemoryType,
  MemoryVisibility,
} from '../../../storage/memory-store.js';
import { candidateTerms, rankMemories } from '../../memory/memory-ranking.js';
import { formatMemoryLine, normalizeMemoryName } from '../../memory/memory-text.js';
import { fenceUntrusted } from '../../../shared/untrusted-fence.js';
import type { ToolContext, ToolHandler, ToolPreparation, ToolResult } from '../tool.js';

export const DEFAULT_MEMORY_MAX_CONTENT = 32_768;
const DEFAULT_LIMIT = 20;
const MAX_LIMIT = 50;
/** Candidates ranked per search. */
const SEARCH_CANDIDATES = 200;
const ACTIONS = ['save', 'search', 'delete', 'list'] as const;
const TYPES: readonly MemoryType[] = ['user', 'project', 'feedback', 'reference'];
const SCOPES: readonly MemoryScope[] = ['global', 'workstream', 'user'];

export interface MemoryHandlerOptions {
  memories: MemoryStore;
  /** The user id owning a workstream ('' when unknown). */
  ownerOf: (wsId: string) => Promise<string>;
  /** A user's name and admin flag (undefined when unknown): who may write `global` memories, and the author shown. */
  userOf?: (userId: string) => Promise<{ username: string; isAdmin: boolean } | undefined>;
  /** `memory.max_content`. */
  maxContent?: number;
}

interface MemoryArgs {
  action: string;
  name: string;
  content: string;
  description: string;
  type?: MemoryType;
  scope?: MemoryScope;
  query: string;
  limit: number;
}

const str = (value: unknown): string => (typeof value === 'string' ? value.trim() : '');

function readArgs(args: Record<string, unknown>): MemoryArgs {
  const type = TYPES.find((candidate) => candidate === str(args['type']).toLowerCase());
  const scope = SCOPES.find((candidate) => candidate === str(args['scope']).toLowerCase());
  const rawLimit = Number(args['limit'] ?? DEFAULT_LIMIT);
  return {
    action: str(args['action']).toLowerCase(),
    name: normalizeMemoryName(str(args['name'] ?? args['key'])),
    content: str(args['content'] ?? args['value']),
    description: str(args['description']),
    ...(type === undefined ? {} : { type }),
    ...(scope === undefined ? {} : { scope }),
    query: str(args['query']),
    limit: Number.isFinite(rawLimit) ? Math.min(MAX_LIMIT, Math.max(1, Math.trunc(rawLimit))) : DEFAULT_LIMIT,
  };
}

function fail(error: string): ToolPreparation {
  return {
    header: `✗ memory: ${error.replace(/^Error:\s*/, '')}`,
    preview: '',
    needsApproval: false,
    approvalLabel: 'memory',
    error,
  };
}

export const GLOBAL_NEEDS_ADMIN =
  "Error: only an admin may write global memories (every user's conversations see them); nothing was changed. Use scope 'user' for this user's memories.";

/** Checks the arguments; a `global` write is refused outside an admin's workstream and asks the admin otherwise. */
async function prepare(
  args: Record<string, unknown>,
  maxContent: number,
  context: ToolContext,
  options: MemoryHandlerOptions,
): Promise<ToolPreparation> {
  const checked = checkArgs(args, maxContent);
  const a = readArgs(args);
  if (checked.error !== undefined || a.scope !== 'global' || (a.action !== 'save' && a.action !== 'delete'))
    return checked;
  const writer = await writerOf(context, options);
  if (!writer?.isAdmin) return fail(GLOBAL_NEEDS_ADMIN);
  return { ...checked, needsApproval: true, approvalLabel: 'memory_global' };
}

async function writerOf(
  context: ToolContext,
  options: MemoryHandlerOptions,
): Promise<{ username: string; isAdmin: boolean } | undefined> {
  const owner = await options.ownerOf(context.workstreamId);
  return owner === '' ? undefined : await options.userOf?.(owner);
}

function checkArgs(args: Record<string, unknown>, maxContent: number): ToolPreparation {
  const a = readArgs(args);
  if (!(ACTIONS as readonly string[]).includes(a.action))
    return fail(`Error: action must be save/search/delete/list, got '${a.action}'`);
  if (a.action === 'save' && (a.name === '' || a.content === ''))
    return fail("Error: both 'name' and 'content' are required for save");
  if (a.action === 'save' && a.content.length > maxContent)
    return fail(`Error: content exceeds ${maxContent} character limit`);
  if (a.action === 'delete' && a.name === '') return fail('Error: name is required for delete');
  const header =
    a.action === 'search'
      ? `⚙ memory search: ${a.query.slice(0, 80)}`
      : a.action === 'list'
        ? '⚙ memory list'
        : `⚙ memory ${a.action}: ${a.name}`;
  return {
    header,
    preview: a.action === 'save' ? a.content.slice(0, 200) : '',
    needsApproval: false,
    approvalLabel: 'memory',
  };
}

/** The scope id of a save or delete, or the error text. */
async function scopeId(
  scope: MemoryScope,
  context: ToolContext,
  options: MemoryHandlerOptions,
): Promise<string | { error: string }> {
  if (scope === 'global') return '';
  if (scope === 'workstream') return context.workstreamId;
  const owner = await options.ownerOf(context.workstreamId);
  return owner === '' ? { error: "Error: 'user' scope requires authenticated user identity" } : owner;
}

/** The scope a save or delete names, or the default: the owner's `user` scope, `workstream` without an owner. */
async function scopeOf(a: MemoryArgs, context: ToolContext, options: MemoryHandlerOptions): Promise<MemoryScope> {
  return a.scope ?? ((await options.ownerOf(context.workstreamId)) === '' ? 'workstream' : 'user');
}

async function save(a: MemoryArgs, context: ToolContext, options: MemoryHandlerOptions): Promise<ToolResult> {
  const scope = await scopeOf(a, context, options);
  const id = await scopeId(scope, context, options);
  if (typeof id !== 'string') return { output: id.error, isError: true };
  const type = a.type ?? 'project';
  const author = (await writerOf(context, options))?.username ?? '';
  try {
    // Two rounds: a parallel delete may remove the row between the failed insert and the update.
    for (let round = 0; round < 2; round++) {
      const created = await options.memories.create({
        name: a.name,
        description: a.description,
        type,
        scope,
        scopeId: id,
        content: a.content,
        author,
      });
      if (created) return { output: `Saved memory '${a.name}' (type=${type}, scope=${scope})`, isError: false };
      // Exists: replace the content; keep description and type unless the call gives new ones.
      const patch = {
        content: a.content,
        author,
        ...(a.description ? { description: a.description } : {}),
        ...(a.type ? { type: a.type } : {}),
      };
      if (await options.memories.update(a.name, scope, id, patch)) {
        const row = await options.memories.get(a.name, scope, id);
        return { output: `Updated memory '${a.name}' (type=${row?.type ?? type}, scope=${scope})`, isError: false };
      }
    }
    return { output: `Error: failed to save memory '${a.name}'`, isError: true };
  } catch (error) {
    context.logger.warn({ err: describeError(error), name: a.name }, 'memory save failed');
    return { output: `Error: failed to save memory '${a.name}'`, isError: true };
  }
}

async function remove(a: MemoryArgs, context: ToolContext, options: MemoryHandlerOptions): Promise<ToolResult> {
  const scope = await scopeOf(a, context, options);
  const id = await scopeId(scope, context, options);
  if (typeof id !== 'string') return { output: id.error, isError: true };
  const deleted = await options.memories.delete(a.name, scope, id);
  return deleted
    ? { output: `Deleted memory '${a.name}'`, isError: false }
    : { output: `Error: memory '${a.name}' not found (scope=${scope})`, isError: true };
}

/** BM25 hits first; then substring matches of every term the tokenizer could not score (`deploy` in `deployment`). */
function searchOrder(candidates: readonly MemoryRow[], query: string, limit: number): MemoryRow[] {
  const ranked = rankMemories(candidates, query, limit);
  const seen = new Set(ranked.map((row) => row.memoryId));
  const terms = query
    .toLowerCase()
    .split(/\s+/)
    .filter((term) => term !== '');
  const haystack = (row: MemoryRow): string => `${row.name} ${row.description} ${row.content}`.toLowerCase();
  const rest = candidates.filter(
    (row) => !seen.has(row.memoryId) && terms.every((term) => haystack(row).includes(term)),
  );
  return [...ranked, ...rest].slice(0, limit);
}

async function searchOrList(a: MemoryArgs, context: ToolContext, options: MemoryHandlerOptions): Promise<ToolResult> {
  const visibility: MemoryVisibility = {
    wsId: context.workstreamId,
    userId: await options.ownerOf(context.workstreamId),
  };
  const filter = { ...(a.type ? { type: a.type } : {}), ...(a.scope ? { scope: a.scope } : {}) };
  const searching = a.action === 'search' && a.query !== '';
  const rows = searching
    ? searchOrder(
        await options.memories.listVisible(visibility, {
          ...filter,
          anyTerms: [...new Set([...candidateTerms(a.query, 12), ...a.query.toLowerCase().split(/\s+/)])].filter(
            (t) => t !== '',
          ),
          prefixes: true,
          limit: SEARCH_CANDIDATES,
        }),
        a.query,
        a.limit,
      )
    : await options.memories.listVisible(visibility, { ...filter, limit: a.limit });
  if (rows.length === 0) {
    return { output: searching ? `No memories found for '${a.query}'.` : 'No memories stored.', isError: false };
  }
  // Touch only records when the memories were last used: a failed touch must not fail the search (logged at debug).
  await options.memories
    .touch(rows.map((row) => row.memoryId))
    .catch((error: unknown) =>
      context.logger.debug({ err: describeError(error) }, 'memory last-used time not recorded'),
    );
  const heading = a.action === 'search' ? `Memories (${rows.length} results):` : `Memories (${rows.length}):`;
  return {
    output: [heading, fenceUntrusted({ source: 'memory' }, rows.map(formatMemoryLine).join('\n'))].join('\n'),
    isError: false,
  };
}

export function createMemoryHandler(options: MemoryHandlerOptions): ToolHandler {
  const maxContent = options.maxContent ?? DEFAULT_MEMORY_MAX_CONTENT;
  return {
    name: 'memory',
    prepare: (args, context) => prepare(args, maxContent, context, options),
    async execute(args, context) {
      const checked = await prepare(args, maxContent, context, options);
      if (checked.error !== undefined) return { output: checked.error, isError: true };
      const a = readArgs(args);
      if (a.action === 'save') return save(a, context, options);
      if (a.action === 'delete') return remove(a, context, options);
      return searchOrList(a, context, options);
    },
  };
}
