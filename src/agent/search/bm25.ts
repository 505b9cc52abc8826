/** A small in-memory BM25 index (k1 = 1.5, b = 0.75) with the reference tokenizer, used by tool search. */

/** Term-frequency saturation. */
export const BM25_K1 = 1.5;
/** Document-length normalisation. */
export const BM25_B = 0.75;

const TOKEN_SEPARATORS = /[_\-./\s]+/;

/** Splits on `_ - . /` and whitespace, lower-cases, drops empty tokens; other punctuation stays attached. */
export function tokenize(text: string): string[] {
  return text
    .split(TOKEN_SEPARATORS)
    .map((token) => token.toLowerCase())
    .filter((token) => token !== '');
}

/** One hit: the document's index in the corpus and its score (always > 0). */
export interface Bm25Hit {
  index: number;
  score: number;
}

interface IndexedDoc {
  length: number;
  termFrequencies: Map<string, number>;
}

/** BM25 over a fixed corpus of documents (strings), built once. */
export class Bm25Index {
  readonly #docs: IndexedDoc[];
  readonly #documentFrequency = new Map<string, number>();
  readonly #averageLength: number;
  readonly #tokenize: (text: string) => string[];

  /** `tokenizer` defaults to the reference tokenizer above (tool names); memories use a prose tokenizer. */
  constructor(documents: readonly string[], tokenizer: (text: string) => string[] = tokenize) {
    this.#tokenize = tokenizer;
    this.#docs = documents.map((document) => {
      const tokens = tokenizer(document);
      const termFrequencies = new Map<string, number>();
      for (const token of tokens) termFrequencies.set(token, (termFrequencies.get(token) ?? 0) + 1);
      return { length: tokens.length, termFrequencies };
    });
    for (const doc of this.#docs) {
      for (const term of doc.termFrequencies.keys())
        this.#documentFrequency.set(term, (this.#documentFrequency.get(term) ?? 0) + 1);
    }
    const total = this.#docs.reduce((sum, doc) => sum + doc.length, 0);
    this.#averageLength = total / Math.max(this.#docs.length, 1);
  }

  /** `ln((N − df + 0.5)/(df + 0.5) + 1)`. */
  idf(term: string): number {
    const df = this.#documentFrequency.get(term) ?? 0;
    const n = this.#docs.length;
    return Math.log((n - df + 0.5) / (df + 0.5) + 1);
  }

  /** Score of one document; repeated query tokens count repeatedly. */
  score(queryTokens: readonly string[], index: number): number {
    const doc = this.#docs[index];
    if (doc === undefined) return 0;
    let score = 0;
    for (const term of queryTokens) {
      const tf = doc.termFrequencies.get(term) ?? 0;
      if (tf === 0) continue;
      const norm = this.#averageLength === 0 ? 1 : doc.length / this.#averageLength;
      score += (this.idf(term) * (tf * (BM25_K1 + 1))) / (tf + BM25_K1 * (1 - BM25_B + BM25_B * norm));
    }
    return score;
  }

  /** Documents with score > 0, best first (ties: lower index first), at most `k`. Empty query or corpus → []. */
  search(query: string, k: number): Bm25Hit[] {
    const queryTokens = this.#tokenize(query);
    if (queryTokens.length === 0 || this.#docs.length === 0 || k <= 0) return [];
    const hits: Bm25Hit[] = [];
    for (let index = 0; index < this.#docs.length; index++) {
      const score = this.score(queryTokens, index);
      if (score > 0) hits.push({ index, score });
    }
    hits.sort((a, b) => b.score - a.score || a.index - b.index);
    return hits.slice(0, k);
  }
}
