/** Relevance of structured memories to a text: a prose tokenizer, SQL candidate terms, and BM25 ranking. */
import type { MemoryRow } from '../../storage/memory-store.js';
import { Bm25Index } from '../search/bm25.js';

/** Characters of content that take part in ranking (the rest of a long memory is not scored). */
export const RANKED_CONTENT_CHARS = 1000;

/** Words too common to say anything about relevance (they would make every memory "match"). */
const STOPWORDS = new Set(
  (
    'a an and are as at be been but by can could did do does for from had has have how i if in into is it its me my ' +
    'no not of on or our please should so than that the their them then there these they this to us was we were what ' +
    'when where which who why will with would you your'
  ).split(' '),
);

/** Lower-cased runs of letters and digits (any script) of two or more characters, without stopwords. `deploy_cmd` → deploy, cmd. */
export function memoryTokens(text: string): string[] {
  return text
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter((token) => token.length > 1 && !STOPWORDS.has(token));
}

/**
 * Terms for the SQL candidate query: distinct tokens of at least 3 characters, the longest first (long words
 * are the specific ones), at most `max`. Short texts keep their short tokens so `ci` still finds something.
 */
export function candidateTerms(text: string, max = 8): string[] {
  const distinct = [...new Set(memoryTokens(text))];
  const long = distinct.filter((token) => token.length >= 3);
  return (long.length > 0 ? long : distinct).sort((a, b) => b.length - a.length || a.localeCompare(b)).slice(0, max);
}

/** The text a memory is ranked on. */
function rankedText(memory: MemoryRow): string {
  return `${memory.name} ${memory.description} ${memory.content.slice(0, RANKED_CONTENT_CHARS)}`;
}

/** Memories with a BM25 score > 0 for `query`, best first (ties keep the input order), at most `k`. */
export function rankMemories(memories: readonly MemoryRow[], query: string, k: number): MemoryRow[] {
  if (memories.length === 0 || k <= 0) return [];
  const index = new Bm25Index(memories.map(rankedText), memoryTokens);
  return index.search(query, k).map((hit) => memories[hit.index] as MemoryRow);
}
