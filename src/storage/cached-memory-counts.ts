/**
 * A MemoryStore whose `countVisible` is answered from remembered per-scope counts: the memories section of the
 * system message asks for it before every model call, on the waiting path, and the answer is almost always the same.
 *
 * - Global and user counts are one snapshot (one grouped query; a user without memories is absent, i.e. 0), so a
 *   user seen for the first time costs nothing either.
 * - Workstream counts are remembered per workstream; a workstream created in this process starts at 0 without a
 *   query (`workstreamCreated`, called by the workstream store: a fresh random id has no memories), so a new
 *   thread's first model call does not wait behind its own workstream + route transaction.
 * - A write through this store forgets the scope it wrote; a count read while a write ran is not remembered.
 * - Writes by another process (a second gateway node on the same database) show within MEMORY_COUNT_TTL_MS: an
 *   older count is still answered while a refresh runs in the background (never on the waiting path), so they show
 *   from the call after that refresh.
 */
import { LRUCache } from 'lru-cache';
import type {
  MemoryRow,
  MemoryScope,
  MemoryScopeCounting,
  MemoryStore,
  MemoryVisibility,
  OwnerScopeCounts,
} from './memory-store.js';

export const MEMORY_COUNT_TTL_MS = 60_000;
const COUNT_LIMIT = 4096;

interface Remembered<T> {
  value: T;
  at: number;
}

export class CachedMemoryCounts implements MemoryStore {
  private owners: Remembered<OwnerScopeCounts> | undefined;
  private ownersLoading: Promise<OwnerScopeCounts> | undefined;
  private readonly workstreams = new LRUCache<string, Remembered<number>>({ max: COUNT_LIMIT });
  private readonly workstreamsLoading = new Map<string, Promise<number>>();
  /** Bumped by every write; a count read while a write ran is not remembered. */
  private generation = 0;

  constructor(
    private readonly store: MemoryStore & MemoryScopeCounting,
    private readonly now: () => number = Date.now,
  ) {}

  /** A workstream was just created here: it has no memories of its own yet. */
  workstreamCreated(wsId: string): void {
    this.workstreams.set(wsId, { value: 0, at: this.now() });
  }

  create(input: Parameters<MemoryStore['create']>[0]): Promise<MemoryRow | undefined> {
    return this.writing(input.scope, input.scopeId, () => this.store.create(input));
  }

  get(name: string, scope: MemoryScope, scopeId: string): Promise<MemoryRow | undefined> {
    return this.store.get(name, scope, scopeId);
  }

  /** An update never moves a memory to another scope, so no count changes. */
  update(
    name: string,
    scope: MemoryScope,
    scopeId: string,
    patch: Parameters<MemoryStore['update']>[3],
  ): Promise<boolean> {
    return this.store.update(name, scope, scopeId, patch);
  }

  delete(name: string, scope: MemoryScope, scopeId: string): Promise<boolean> {
    return this.writing(scope, scopeId, () => this.store.delete(name, scope, scopeId));
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
    const owners =
      this.owners !== undefined ? this.fresh(this.owners, () => this.loadOwners()) : await this.loadOwners();
    const remembered = this.workstreams.get(visibility.wsId);
    const own =
      remembered !== undefined
        ? this.fresh(remembered, () => this.loadWorkstream(visibility.wsId))
        : await this.loadWorkstream(visibility.wsId);
    return owners.global + (visibility.userId === '' ? 0 : (owners.users.get(visibility.userId) ?? 0)) + own;
  }

  touch(memoryIds: readonly string[]): Promise<void> {
    return this.store.touch(memoryIds);
  }

  /** The remembered value; when it aged out, a refresh starts in the background (its failure keeps the old value). */
  private fresh<T>(remembered: Remembered<T>, refresh: () => Promise<T>): T {
    if (this.now() - remembered.at >= MEMORY_COUNT_TTL_MS) refresh().catch(() => undefined);
    return remembered.value;
  }

  /** One grouped query at a time; a write drops the query in flight, so later callers never get a count from before it. */
  private loadOwners(): Promise<OwnerScopeCounts> {
    if (this.ownersLoading !== undefined) return this.ownersLoading;
    const loading = this.remembering(
      () => this.store.countOwnerScopes(),
      (value) => (this.owners = { value, at: this.now() }),
    ).finally(() => {
      if (this.ownersLoading === loading) this.ownersLoading = undefined;
    });
    this.ownersLoading = loading;
    return loading;
  }

  private loadWorkstream(wsId: string): Promise<number> {
    const pending = this.workstreamsLoading.get(wsId);
    if (pending !== undefined) return pending;
    const loading = this.remembering(
      () => this.store.countWorkstreamScope(wsId),
      (value) => this.workstreams.set(wsId, { value, at: this.now() }),
    ).finally(() => {
      if (this.workstreamsLoading.get(wsId) === loading) this.workstreamsLoading.delete(wsId);
    });
    this.workstreamsLoading.set(wsId, loading);
    return loading;
  }

  /** Reads a count and remembers it unless a write ran meanwhile. */
  private async remembering<T>(read: () => Promise<T>, remember: (value: T) => void): Promise<T> {
    const generation = this.generation;
    const value = await read();
    if (generation === this.generation) remember(value);
    return value;
  }

  private async writing<T>(scope: MemoryScope, scopeId: string, write: () => Promise<T>): Promise<T> {
    this.forget(scope, scopeId);
    try {
      return await write();
    } finally {
      this.forget(scope, scopeId);
    }
  }

  private forget(scope: MemoryScope, scopeId: string): void {
    this.generation++;
    if (scope === 'workstream') {
      this.workstreams.delete(scopeId);
      this.workstreamsLoading.delete(scopeId);
    } else {
      this.owners = undefined;
      this.ownersLoading = undefined;
    }
  }
}
