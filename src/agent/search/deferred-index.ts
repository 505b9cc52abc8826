/** The BM25 index over the deferred tools, built once per catalog change and reused by every search. */
import type { ToolDefinition } from '../tools/tool.js';
import { Bm25Index } from './bm25.js';

/** Holds the index of the last catalog seen; a catalog differing in any tool's name or description rebuilds it. */
export class DeferredToolIndex {
  #names: string[] = [];
  #descriptions: string[] = [];
  #index: Bm25Index | undefined;
  #builds = 0;

  /** The index for `deferred` (document i is tool i): the cached one while the catalog is unchanged. */
  indexFor(deferred: readonly ToolDefinition[]): Bm25Index {
    if (this.#index === undefined || !this.#matches(deferred)) {
      this.#names = deferred.map((tool) => tool.name);
      this.#descriptions = deferred.map((tool) => tool.description);
      this.#index = new Bm25Index(deferred.map((tool) => `${tool.name} ${tool.description}`));
      this.#builds++;
    }
    return this.#index;
  }

  /** How many times an index was built (tests and benchmarks). */
  get builds(): number {
    return this.#builds;
  }

  /** O(n) comparison of strings (usually the very same string objects), far cheaper than tokenizing again. */
  #matches(deferred: readonly ToolDefinition[]): boolean {
    if (deferred.length !== this.#names.length) return false;
    for (let i = 0; i < deferred.length; i++) {
      const tool = deferred[i] as ToolDefinition;
      if (tool.name !== this.#names[i] || tool.description !== this.#descriptions[i]) return false;
    }
    return true;
  }
}

/** One index per process: the tool catalog is shared by every workstream. */
export const sharedDeferredIndex = new DeferredToolIndex();
