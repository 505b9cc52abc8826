/** Structured memories (`structured_memories`), identified by (name, scope, scopeId). */

export type MemoryType = 'user' | 'project' | 'feedback' | 'reference';
export type MemoryScope = 'global' | 'workstream' | 'user';

export interface MemoryRow {
  memoryId: string;
  name: string;
  description: string;
  type: MemoryType;
  scope: MemoryScope;
  scopeId: string;
  content: string;
  /** Who last wrote it (a username; '' when unknown): shown to the model with the memory. */
  author: string;
  created: string;
  updated: string;
  lastAccessed: string;
  accessCount: number;
}

export interface MemoryFilter {
  type?: MemoryType;
  scope?: MemoryScope;
  scopeId?: string;
}

/** Whose memories a workstream sees: global ones, its own workstream-scoped ones, its owner's user-scoped ones. */
export interface MemoryVisibility {
  wsId: string;
  /** The workstream owner's user id; '' sees no user-scoped memories. */
  userId: string;
}

/** Memory counts of the scopes a workstream's owner brings along: global, and each user's (absent: none). */
export interface OwnerScopeCounts {
  global: number;
  users: Map<string, number>;
}

/** The per-scope counts CachedMemoryCounts is built from. */
export interface MemoryScopeCounting {
  countOwnerScopes(): Promise<OwnerScopeCounts>;
  countWorkstreamScope(wsId: string): Promise<number>;
}

export interface VisibleMemoryQuery {
  type?: MemoryType;
  /** Restricts to one of the visible scopes. */
  scope?: MemoryScope;
  /**
   * When non-empty: rows with a word (in name, description or content) equal to one of these terms (or starting
   * with one, with `prefixes`), best full-text match first, then newest. Only letters and digits of a term count.
   */
  anyTerms?: readonly string[];
  prefixes?: boolean;
  limit?: number;
}

export interface MemoryStore {
  /** Inserts; returns undefined when (name, scope, scopeId) already exists. */
  create(
    input: Pick<MemoryRow, 'name' | 'description' | 'type' | 'scope' | 'scopeId' | 'content'> & { author?: string },
  ): Promise<MemoryRow | undefined>;
  get(name: string, scope: MemoryScope, scopeId: string): Promise<MemoryRow | undefined>;
  /** Updates content/description/type; false when missing. */
  update(
    name: string,
    scope: MemoryScope,
    scopeId: string,
    patch: Partial<Pick<MemoryRow, 'content' | 'description' | 'type' | 'author'>>,
  ): Promise<boolean>;
  delete(name: string, scope: MemoryScope, scopeId: string): Promise<boolean>;
  /** Newest `updated` first. */
  list(filter?: MemoryFilter, limit?: number): Promise<MemoryRow[]>;
  /** Every whitespace-separated term must occur in name, description or content (case-insensitive). */
  search(query: string, filter?: MemoryFilter, limit?: number): Promise<MemoryRow[]>;
  /** Memories visible to a workstream (never another workstream's or user's), newest `updated` first unless ranked. */
  listVisible(visibility: MemoryVisibility, query?: VisibleMemoryQuery): Promise<MemoryRow[]>;
  /** How many memories a workstream sees. */
  countVisible(visibility: MemoryVisibility): Promise<number>;
  /** Bumps access_count and last_accessed. */
  touch(memoryIds: readonly string[]): Promise<void>;
}
