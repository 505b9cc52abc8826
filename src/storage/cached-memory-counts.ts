/**
 * A MemoryStore whose `countVisible` is remembered per visibility (workstream, owner): the memories section of the
 * system message asks for it before every model call, on the waiting path, and the answer is almost always the same.
 * Every write through this store forgets all counts at once; writes by another process (a second gateway node on
 * the same database) are seen within MEMORY_COUNT_TTL_MS (a minute: people answer slower than a few seconds).
 */
import { LRUCache } from 'lru-cache';
import type { MemoryRow, MemoryScope, MemoryStore, MemoryVisibility } from './memory-store.js';

export const MEMORY_COUNT_TTL_MS = 60_000;
const COUNT_LIMIT = 4096;

export class CachedMemoryCounts implements MemoryStore {
  private readonly counts = new LRUCache<string, { count: number; at: number }>({ max: COUNT_LIMIT });
  /** Bumped by every write; a count read while a write ran is not remembered. */
  private generation = 0;

  constructor(
    private readonly store: MemoryStore,
    private readonly now: () => number = Date.now,
  ) {}

  create(input: Parameters<MemoryStore['create']>[0]): Promise<MemoryRow | undefined> {
    return this.writing(() => this.store.create(input));
  }

  get(name: string, scope: MemoryScope, scopeId: string): Promise<MemoryRow | undefined> {
    return this.store.get(name, scope, scopeId);
  }

  update(name: string, scope: MemoryScope, scopeId: string, patch: Parameters<MemoryStore['update']>[3]): Promise<boolean> {
    return this.writing(() => this.store.update(name, scope, scopeId, patch));
  }

  delete(name: string, scope: MemoryScope, scopeId: string): Promise<boolean> {
    return this.writing(() => this.store.delete(name, scope, scopeId));
  }

  list(...args: Parameters<MemoryStore['list']>): Promise<MemoryRow[]> {
    return this.store.list(...args);
  }

  search(...args: Parameters<MemoryStore['search']>): Promise<MemoryRow[]> {
    return this.store.search(...args);
  }

  listVisible(...args: Parameters<MemoryStore['listVisible']>): Promise<MemoryRow[]> {
    return this.store.listVisible(...args);
  }

  async countVisible(visibility: MemoryVisibility): Promise<number> {
    const key = `${visibility.wsId}\u0000${visibility.userId}`;
    const hit = this.counts.get(key);
    if (hit !== undefined && this.now() - hit.at < MEMORY_COUNT_TTL_MS) return hit.count;
    const generation = this.generation;
    const count = await this.store.countVisible(visibility);
    if (generation === this.generation) this.counts.set(key, { count, at: this.now() });
    return count;
  }

  touch(memoryIds: readonly string[]): Promise<void> {
    return this.store.touch(memoryIds);
  }

  private async writing<T>(write: () => Promise<T>): Promise<T> {
    this.forget();
    try {
      return await write();
    } finally {
      this.forget();
    }
  }

  private forget(): void {
    this.generation++;
    this.counts.clear();
  }
}
