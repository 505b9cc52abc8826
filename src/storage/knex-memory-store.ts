/** MemoryStore on knex: structured memories keyed by (name, scope, scopeId), with substring search. */
import type { Knex } from 'knex';
import { newUuid } from '../shared/ids.js';
import { isoNow } from '../shared/time.js';
import type {
  MemoryFilter,
  MemoryRow,
  MemoryScope,
  MemoryStore,
  MemoryType,
  MemoryVisibility,
  OwnerScopeCounts,
  VisibleMemoryQuery,
} from './memory-store.js';
import { definedOnly, escapeLike, text, toNumber, type DbRow } from './rows.js';
import { guard } from './storage-errors.js';

const DEFAULT_LIMIT = 50;
const TYPES: readonly MemoryType[] = ['user', 'project', 'feedback', 'reference'];
const SCOPES: readonly MemoryScope[] = ['global', 'workstream', 'user'];

type MemoryInput = Pick<MemoryRow, 'name' | 'description' | 'type' | 'scope' | 'scopeId' | 'content'> & {
  author?: string;
};

function toMemory(row: DbRow): MemoryRow {
  return {
    memoryId: text(row.memory_id),
    name: text(row.name),
    description: text(row.description),
    type: TYPES.find((type) => type === row.type) ?? 'project',
    scope: SCOPES.find((scope) => scope === row.scope) ?? 'global',
    scopeId: text(row.scope_id),
    content: text(row.content),
    author: text(row.author),
    created: text(row.created),
    updated: text(row.updated),
    lastAccessed: text(row.last_accessed),
    accessCount: toNumber(row.access_count),
  };
}

/** Letter/digit runs of a term: the only characters that reach a full-text query (no syntax can be injected). */
function fullTextWords(term: string): string[] {
  return term
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter((word) => word !== '');
}

function normaliseLimit(limit: number | undefined): number {
  return Math.max(1, Math.trunc(limit ?? DEFAULT_LIMIT));
}

export class KnexMemoryStore implements MemoryStore {
  private readonly likeOperator: string;

  constructor(private readonly knex: Knex) {
    // SQLite LIKE is case-insensitive for ASCII; PostgreSQL needs ILIKE for the same behaviour.
    this.likeOperator = knex.client.config.client === 'pg' ? 'ILIKE' : 'LIKE';
  }

  create(input: MemoryInput): Promise<MemoryRow | undefined> {
    return guard('memories.create', async () => {
      const now = isoNow();
      const row = {
        memory_id: newUuid(),
        name: input.name,
        description: input.description,
        type: input.type,
        scope: input.scope,
        scope_id: input.scopeId,
        content: input.content,
        author: input.author ?? '',
        created: now,
        updated: now,
        last_accessed: now,
        access_count: 0,
      };
      const inserted = await this.knex('structured_memories')
        .insert(row)
        .onConflict(['name', 'scope', 'scope_id'])
        .ignore()
        .returning('memory_id');
      return inserted.length > 0 ? toMemory(row) : undefined;
    });
  }

  get(name: string, scope: MemoryScope, scopeId: string): Promise<MemoryRow | undefined> {
    return guard('memories.get', async () => {
      const row = (await this.knex('structured_memories').where({ name, scope, scope_id: scopeId }).first()) as
        DbRow | undefined;
      return row ? toMemory(row) : undefined;
    });
  }

  update(
    name: string,
    scope: MemoryScope,
    scopeId: string,
    patch: Partial<Pick<MemoryRow, 'content' | 'description' | 'type' | 'author'>>,
  ): Promise<boolean> {
    return guard('memories.update', async () => {
      const columns = definedOnly({
        content: patch.content,
        description: patch.description,
        type: patch.type,
        author: patch.author,
      });
      if (Object.keys(columns).length === 0) return false;
      const now = isoNow();
      const changed = await this.knex('structured_memories')
        .where({ name, scope, scope_id: scopeId })
        .update({ ...columns, updated: now, last_accessed: now });
      return changed > 0;
    });
  }

  delete(name: string, scope: MemoryScope, scopeId: string): Promise<boolean> {
    return guard('memories.delete', async () => {
      const removed = await this.knex('structured_memories').where({ name, scope, scope_id: scopeId }).delete();
      return removed > 0;
    });
  }

  list(filter: MemoryFilter = {}, limit?: number): Promise<MemoryRow[]> {
    return guard('memories.list', async () => {
      const rows = (await this.filtered(filter).limit(normaliseLimit(limit))) as DbRow[];
      return rows.map(toMemory);
    });
  }

  search(query: string, filter: MemoryFilter = {}, limit?: number): Promise<MemoryRow[]> {
    return guard('memories.search', async () => {
      const terms = query.split(/\s+/).filter((term) => term !== '');
      const builder = this.filtered(filter);
      for (const term of terms) {
        const pattern = `%${escapeLike(term)}%`;
        const op = this.likeOperator;
        builder.andWhere((inner) => {
          inner
            .whereRaw(`name ${op} ? ESCAPE '\\'`, [pattern])
            .orWhereRaw(`description ${op} ? ESCAPE '\\'`, [pattern])
            .orWhereRaw(`content ${op} ? ESCAPE '\\'`, [pattern]);
        });
      }
      const rows = (await builder.limit(normaliseLimit(limit))) as DbRow[];
      return rows.map(toMemory);
    });
  }

  listVisible(visibility: MemoryVisibility, query: VisibleMemoryQuery = {}): Promise<MemoryRow[]> {
    return guard('memories.listVisible', async () => {
      const builder = this.visible(visibility, query.scope).select('structured_memories.*');
      if (query.type) builder.where({ type: query.type });
      if (query.anyTerms !== undefined && query.anyTerms.length > 0) {
        const words = [...new Set(query.anyTerms.flatMap(fullTextWords))];
        if (words.length === 0) return [];
        this.matchAnyWord(builder, words, query.prefixes === true);
      }
      const rows = (await builder
        .orderBy([{ column: 'updated', order: 'desc' }, { column: 'created', order: 'desc' }, { column: 'name' }])
        .limit(normaliseLimit(query.limit))) as DbRow[];
      return rows.map(toMemory);
    });
  }

  /** Restricts to rows with one of `words` (or a word starting with one), best full-text rank first. */
  private matchAnyWord(builder: Knex.QueryBuilder, words: readonly string[], prefixes: boolean): void {
    if (this.likeOperator === 'ILIKE') {
      const tsquery = words.map((word) => (prefixes ? `${word}:*` : word)).join(' | ');
      builder.whereRaw(`search_vector @@ to_tsquery('simple', ?)`, [tsquery]);
      builder.orderByRaw(`ts_rank(search_vector, to_tsquery('simple', ?)) DESC`, [tsquery]);
      return;
    }
    const match = words.map((word) => `"${word}"${prefixes ? '*' : ''}`).join(' OR ');
    const ranked = this.knex.raw(
      '(SELECT memory_id AS fts_id, bm25(structured_memories_fts) AS fts_rank FROM structured_memories_fts WHERE structured_memories_fts MATCH ?) AS f',
      [match],
    );
    builder.join(ranked, 'f.fts_id', 'structured_memories.memory_id').orderBy('f.fts_rank');
  }

  countVisible(visibility: MemoryVisibility): Promise<number> {
    return guard('memories.countVisible', async () => {
      const row = (await this.visible(visibility).count({ n: '*' }).first()) as DbRow | undefined;
      return toNumber(row?.n);
    });
  }

  /** The global count and every user's count (users without memories are absent): one grouped query. */
  countOwnerScopes(): Promise<OwnerScopeCounts> {
    return guard('memories.countOwnerScopes', async () => {
      const rows = (await this.knex('structured_memories')
        .select('scope', 'scope_id')
        .count({ n: '*' })
        .whereIn('scope', ['global', 'user'])
        .groupBy('scope', 'scope_id')) as DbRow[];
      const counts: OwnerScopeCounts = { global: 0, users: new Map() };
      for (const row of rows) {
        if (row.scope === 'global') counts.global += toNumber(row.n);
        else counts.users.set(text(row.scope_id), toNumber(row.n));
      }
      return counts;
    });
  }

  /** How many memories one workstream has in its own scope. */
  countWorkstreamScope(wsId: string): Promise<number> {
    return guard('memories.countWorkstreamScope', async () => {
      const row = (await this.knex('structured_memories')
        .where({ scope: 'workstream', scope_id: wsId })
        .count({ n: '*' })
        .first()) as DbRow | undefined;
      return toNumber(row?.n);
    });
  }

  touch(memoryIds: readonly string[]): Promise<void> {
    return guard('memories.touch', async () => {
      if (memoryIds.length === 0) return;
      await this.knex('structured_memories')
        .whereIn('memory_id', [...memoryIds])
        .update({ access_count: this.knex.raw('access_count + 1'), last_accessed: isoNow() });
    });
  }

  /** Rows of the visible scopes (optionally one of them). */
  private visible(visibility: MemoryVisibility, only?: MemoryScope): Knex.QueryBuilder {
    const scopes: Array<[MemoryScope, string]> = [
      ['global', ''],
      ['workstream', visibility.wsId],
    ];
    if (visibility.userId !== '') scopes.push(['user', visibility.userId]);
    const wanted = scopes.filter(([scope]) => only === undefined || scope === only);
    const query = this.knex('structured_memories');
    if (wanted.length === 0) return query.whereRaw('1 = 0');
    return query.where((inner) => {
      for (const [scope, scopeId] of wanted) inner.orWhere({ scope, scope_id: scopeId });
    });
  }

  /** Rows matching the optional exact filters (empty strings mean "no filter"), newest `updated` first. */
  private filtered(filter: MemoryFilter): Knex.QueryBuilder {
    const query = this.knex('structured_memories');
    if (filter.type) query.where({ type: filter.type });
    if (filter.scope) query.where({ scope: filter.scope });
    if (filter.scopeId) query.where({ scope_id: filter.scopeId });
    return query.orderBy([
      { column: 'updated', order: 'desc' },
      { column: 'created', order: 'desc' },
      { column: 'name' },
    ]);
  }
}
