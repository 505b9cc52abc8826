/** ConversationStore on knex: message history with FTS5 (SQLite) or tsvector (PostgreSQL) search. */
import type { Knex } from 'knex';
import type { Message } from '../agent/messages.js';
import { safeParseJson } from '../shared/json.js';
import { isoNow } from '../shared/time.js';
import type { ConversationSearchOptions, ConversationStore, SearchHit } from './conversation-store.js';
import {
  fromConversationRow,
  repairHistory,
  toConversationRow,
  toFts5Query,
  toWebsearchQuery,
} from './conversation-rows.js';
import { text, toNumber, type DbRow } from './rows.js';
import { guard } from './storage-errors.js';
import { guardAfter, TickWriter } from './tick-writer.js';
import { workstreamKey } from './merged-statements.js';

const DEFAULT_SEARCH_LIMIT = 20;
const MAX_SEARCH_LIMIT = 100;
const INSERT_CHUNK = 50;

type StoredMessage = Exclude<Message, { role: 'system' }>;

function isStored(message: Message): message is StoredMessage {
  return message.role !== 'system';
}

function toHit(row: DbRow): SearchHit {
  return {
    id: toNumber(row.id),
    wsId: text(row.ws_id),
    role: text(row.role),
    content: text(row.content),
    toolName: text(row.tool_name),
    toolCalls: toolCallsOf(row.tool_calls),
    timestamp: text(row.timestamp),
  };
}

function toolCallsOf(value: unknown): SearchHit['toolCalls'] {
  if (typeof value !== 'string' || value === '') return [];
  const parsed = safeParseJson(value);
  if (!parsed.ok || !Array.isArray(parsed.value)) return [];
  return (parsed.value as Array<Record<string, unknown>>).map((call) => ({
    name: text(call['name']),
    arguments: text(call['arguments']),
  }));
}

/** The workstream and owner restrictions of a search, as SQL over the alias `c`. */
function scopeFilter(options: ConversationSearchOptions): { sql: string; bindings: Knex.RawBinding[] } {
  const clauses: string[] = [];
  const bindings: Knex.RawBinding[] = [];
  if (options.wsId !== undefined) {
    clauses.push('AND c.ws_id = ?');
    bindings.push(options.wsId);
  }
  if (options.userId !== undefined) {
    clauses.push('AND c.ws_id IN (SELECT w.ws_id FROM workstreams w WHERE w.user_id = ?)');
    bindings.push(options.userId);
  }
  return { sql: clauses.join(' '), bindings };
}

export class KnexConversationStore implements ConversationStore {
  private readonly isPostgres: boolean;

  constructor(
    private readonly knex: Knex,
    /** Appends and replaces share the write engine with the other hot-path writes, in the order handed in (ADR 0026). */
    private readonly writer: TickWriter = new TickWriter(knex),
  ) {
    this.isPostgres = knex.client.config.client === 'pg';
  }

  /**
   * System messages are not stored: returns 0 for them. One INSERT; the workstream's `updated` time is the
   * agent's to record (batched with its state changes, see docs/decisions/0011-hot-path-writes.md).
   */
  append(wsId: string, message: Message): Promise<void> {
    return guard('conversations.append', async () => {
      if (!isStored(message)) return;
      const row = toConversationRow(wsId, isoNow(), message);
      // One row: the write engine sends it with the group's other history rows as one statement.
      await this.writer.writeRow({ insertInto: 'conversations', row: { ...row } }, [workstreamKey(wsId)]);
    });
  }

  load(wsId: string): Promise<Message[]> {
    return guardAfter(this.writer, 'conversations.load', async () => {
      const rows = (await this.knex('conversations').where({ ws_id: wsId }).orderBy('id')) as DbRow[];
      const messages = rows.map(fromConversationRow).filter((message): message is Message => message !== undefined);
      return repairHistory(messages);
    });
  }

  search(query: string, options: ConversationSearchOptions = {}): Promise<SearchHit[]> {
    return guardAfter(this.writer, 'conversations.search', async () => {
      const limit = Math.min(MAX_SEARCH_LIMIT, Math.max(1, Math.trunc(options.limit ?? DEFAULT_SEARCH_LIMIT)));
      const rows = this.isPostgres
        ? await this.searchPostgres(query, options, limit)
        : await this.searchSqlite(query, options, limit);
      return rows.map(toHit);
    });
  }

  private async searchSqlite(query: string, options: ConversationSearchOptions, limit: number): Promise<DbRow[]> {
    const match = toFts5Query(query);
    if (match === undefined) return [];
    const scope = scopeFilter(options);
    return (await this.knex.raw(
      `SELECT c.id, c.ws_id, c.role, c.content, c.tool_name, c.tool_calls, c.timestamp
         FROM conversations_fts JOIN conversations c ON c.id = conversations_fts.rowid
        WHERE conversations_fts MATCH ? ${scope.sql}
        ORDER BY bm25(conversations_fts), c.id DESC
        LIMIT ?`,
      [match, ...scope.bindings, limit],
    )) as DbRow[];
  }

  private async searchPostgres(query: string, options: ConversationSearchOptions, limit: number): Promise<DbRow[]> {
    const websearch = toWebsearchQuery(query);
    if (websearch === undefined) return [];
    const scope = scopeFilter(options);
    const result = (await this.knex.raw(
      `SELECT c.id, c.ws_id, c.role, c.content, c.tool_name, c.tool_calls, c.timestamp
         FROM conversations c, websearch_to_tsquery('simple', ?) q
        WHERE c.search_vector @@ q ${scope.sql}
        ORDER BY ts_rank(c.search_vector, q) DESC, c.id DESC
        LIMIT ?`,
      [websearch, ...scope.bindings, limit],
    )) as { rows: DbRow[] };
    return result.rows;
  }

  /**
   * The workstream's whole history (compaction, a turn resumed after a restart): one write of the write engine, so
   * one transaction in order with the appends handed in around it, and on SQLite on the same write connection as
   * they are, not a second transaction on knex's connection beside them (ADR 0056).
   */
  replace(wsId: string, messages: readonly Message[]): Promise<void> {
    return guard('conversations.replace', async () => {
      const now = isoNow();
      const rows = messages.filter(isStored).map((message) => toConversationRow(wsId, now, message));
      await this.writer.write(
        async (db) => {
          await db.run(db.table('conversations').where({ ws_id: wsId }).delete());
          for (let start = 0; start < rows.length; start += INSERT_CHUNK) {
            await db.run(db.table('conversations').insert(rows.slice(start, start + INSERT_CHUNK)));
          }
        },
        { touches: [workstreamKey(wsId)] },
      );
    });
  }

  count(wsId: string): Promise<number> {
    return guardAfter(this.writer, 'conversations.count', async () => {
      const row = (await this.knex('conversations').where({ ws_id: wsId }).count({ n: '*' }).first()) as
        DbRow | undefined;
      return toNumber(row?.n);
    });
  }
}
