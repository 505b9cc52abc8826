/** The `recall` tool: full-text search over the conversation history of the workstream owner's workstreams. */
import type { ConversationStore, SearchHit } from '../../../storage/conversation-store.js';
import type { ToolHandler, ToolPreparation } from '../tool.js';

const DEFAULT_LIMIT = 20;
const MAX_LIMIT = 50;
const SHOWN_CHARS = 500;

export interface RecallHandlerOptions {
  conversations: Pick<ConversationStore, 'search'>;
  /** The user id owning a workstream ('' when unknown: then only that workstream is searched). */
  ownerOf: (wsId: string) => Promise<string>;
}

function queryOf(args: Record<string, unknown>): string {
  return typeof args['query'] === 'string' ? args['query'].trim() : '';
}

function limitOf(args: Record<string, unknown>): number {
  const limit = Number(args['limit'] ?? DEFAULT_LIMIT);
  return Number.isFinite(limit) ? Math.min(MAX_LIMIT, Math.max(1, Math.trunc(limit))) : DEFAULT_LIMIT;
}

function prepare(args: Record<string, unknown>): ToolPreparation {
  const query = queryOf(args);
  if (query === '')
    return {
      header: '✗ recall: query is required',
      preview: '',
      needsApproval: false,
      approvalLabel: 'recall',
      error: 'Error: query is required',
    };
  return { header: `⚙ recall: ${query.slice(0, 80)}`, preview: '', needsApproval: false, approvalLabel: 'recall' };
}

/** `[timestamp ws_id] role(tool): content` (tool calls as `→ name args`), cut to 500 characters. */
export function formatHit(hit: SearchHit): string {
  const role = hit.toolName ? `${hit.role}(${hit.toolName})` : hit.role;
  const calls = hit.toolCalls.map((call) => `→ ${call.name} ${call.arguments}`);
  const full = [hit.content, ...calls].filter((part) => part !== '').join(' ');
  const content = full.length > SHOWN_CHARS ? `${full.slice(0, SHOWN_CHARS)}...` : full;
  return `[${hit.timestamp} ${hit.wsId}] ${role}: ${content}`;
}

function isRecallEcho(hit: SearchHit): boolean {
  if (hit.toolName === 'recall') return true;
  return (
    hit.role === 'assistant' &&
    hit.content === '' &&
    hit.toolCalls.length > 0 &&
    hit.toolCalls.every((call) => call.name === 'recall')
  );
}

export function createRecallHandler(options: RecallHandlerOptions): ToolHandler {
  return {
    name: 'recall',
    prepare,
    async execute(args, context) {
      const query = queryOf(args);
      if (query === '') return { output: 'Error: query is required', isError: true };
      const owner = await options.ownerOf(context.workstreamId);
      const scope = owner === '' ? { wsId: context.workstreamId } : { userId: owner };
      const limit = limitOf(args);
      // Earlier recall calls and results only echo other rows (and the running call would find itself).
      const hits = (await options.conversations.search(query, { ...scope, limit: Math.min(100, limit * 2) }))
        .filter((hit) => !isRecallEcho(hit))
        .slice(0, limit);
      if (hits.length === 0) return { output: `No conversation history found for '${query}'.`, isError: false };
      return { output: [`Conversations (${hits.length} matches):`, ...hits.map(formatHit)].join('\n'), isError: false };
    },
  };
}
