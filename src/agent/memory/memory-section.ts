/**
 * The memories section of the system message: the memories most relevant to the recent user messages (BM25,
 * top `relevanceK`) and a count line. Rebuilt before every model call, so it follows the conversation; it
 * costs two small queries and no model call.
 */
import type { MemoryRow, MemoryStore, MemoryVisibility } from '../../storage/memory-store.js';
import type { SystemPromptContext, SystemPromptSection } from '../system-prompt.js';
import { candidateTerms, rankMemories } from './memory-ranking.js';
import { buildMemoryBlock, memoryCountLine } from './memory-text.js';

/** User messages (newest first) that make up the relevance context. */
export const CONTEXT_MESSAGES = 3;

export interface MemorySectionOptions {
  memories: Pick<MemoryStore, 'listVisible' | 'countVisible'>;
  /** Memories shown (`memory.relevance_k`). */
  relevanceK: number;
  /** Candidates fetched and ranked per call (`memory.fetch_limit`). */
  fetchLimit: number;
}

/** The relevance context: the text of the last three user messages, newest first. */
export function recentContext(context: Pick<SystemPromptContext, 'recentUserTexts' | 'lastUserText'>): string {
  const texts = context.recentUserTexts ?? [context.lastUserText];
  return texts.slice(0, CONTEXT_MESSAGES).join(' ').trim();
}

/** Candidates (any context term as a substring, newest first) ranked by BM25; score 0 is never shown. */
export async function selectRelevantMemories(
  store: Pick<MemoryStore, 'listVisible'>,
  visibility: MemoryVisibility,
  text: string,
  options: { relevanceK: number; fetchLimit: number },
): Promise<MemoryRow[]> {
  const terms = candidateTerms(text);
  if (terms.length === 0) return [];
  const candidates = await store.listVisible(visibility, { anyTerms: terms, limit: options.fetchLimit });
  return rankMemories(candidates, text, options.relevanceK);
}

export function createMemorySection(options: MemorySectionOptions): SystemPromptSection {
  return async (context) => {
    const visibility = { wsId: context.wsId, userId: context.ownerUserId };
    const count = await options.memories.countVisible(visibility);
    if (count === 0) return undefined;
    context.signal.throwIfAborted();
    const relevant = await selectRelevantMemories(options.memories, visibility, recentContext(context), options);
    const block = buildMemoryBlock(relevant);
    return [block, memoryCountLine(count)].filter((part) => part !== '').join('\n\n');
  };
}
