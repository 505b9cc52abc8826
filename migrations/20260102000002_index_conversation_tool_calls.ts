/**
 * Puts the tool calls of assistant messages (names and arguments, the JSON of `tool_calls`) into the
 * conversation full-text index next to the content, so `recall` finds commands and paths the agent used.
 */
import type { Knex } from 'knex';

const SQLITE_TRIGGERS = ['conversations_fts_insert', 'conversations_fts_delete', 'conversations_fts_update'];

function sqliteIndex(columns: 'content' | 'content, tool_calls'): string[] {
  const values = (row: 'new' | 'old'): string =>
    columns
      .split(', ')
      .map((column) => `${row}.${column}`)
      .join(', ');
  const watched = columns === 'content' ? 'content' : 'content, tool_calls';
  return [
    ...SQLITE_TRIGGERS.map((name) => `DROP TRIGGER IF EXISTS ${name}`),
    'DROP TABLE IF EXISTS conversations_fts',
    `CREATE VIRTUAL TABLE conversations_fts USING fts5(${columns}, content='conversations', content_rowid='id')`,
    `CREATE TRIGGER conversations_fts_insert AFTER INSERT ON conversations BEGIN
       INSERT INTO conversations_fts(rowid, ${columns}) VALUES (new.id, ${values('new')});
     END`,
    `CREATE TRIGGER conversations_fts_delete AFTER DELETE ON conversations BEGIN
       INSERT INTO conversations_fts(conversations_fts, rowid, ${columns}) VALUES ('delete', old.id, ${values('old')});
     END`,
    `CREATE TRIGGER conversations_fts_update AFTER UPDATE OF ${watched} ON conversations BEGIN
       INSERT INTO conversations_fts(conversations_fts, rowid, ${columns}) VALUES ('delete', old.id, ${values('old')});
       INSERT INTO conversations_fts(rowid, ${columns}) VALUES (new.id, ${values('new')});
     END`,
    `INSERT INTO conversations_fts(conversations_fts) VALUES ('rebuild')`,
  ];
}

function postgresIndex(expression: string): string[] {
  return [
    'ALTER TABLE conversations DROP COLUMN IF EXISTS search_vector',
    `ALTER TABLE conversations ADD COLUMN search_vector tsvector GENERATED ALWAYS AS (to_tsvector('simple', ${expression})) STORED`,
    'CREATE INDEX idx_conversations_search ON conversations USING GIN (search_vector)',
  ];
}

export async function up(knex: Knex): Promise<void> {
  const statements =
    knex.client.config.client === 'pg'
      ? // JSON punctuation becomes spaces, so `/srv/app` in arguments indexes `srv` and `app` (not one path token).
        postgresIndex(
          `coalesce(content, '') || ' ' || regexp_replace(coalesce(tool_calls, ''), '[^[:alnum:]_]+', ' ', 'g')`,
        )
      : sqliteIndex('content, tool_calls');
  for (const sql of statements) await knex.raw(sql);
}

export async function down(knex: Knex): Promise<void> {
  const statements =
    knex.client.config.client === 'pg' ? postgresIndex(`coalesce(content, '')`) : sqliteIndex('content');
  for (const sql of statements) await knex.raw(sql);
}
