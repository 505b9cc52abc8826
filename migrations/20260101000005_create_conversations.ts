/**
 * Creates conversations plus its full-text index: an FTS5 external-content table kept in sync by triggers on
 * SQLite, a generated tsvector column with a GIN index on PostgreSQL.
 */
import type { Knex } from 'knex';

const SQLITE_FTS = [
  `CREATE VIRTUAL TABLE conversations_fts USING fts5(content, content='conversations', content_rowid='id')`,
  `CREATE TRIGGER conversations_fts_insert AFTER INSERT ON conversations BEGIN
     INSERT INTO conversations_fts(rowid, content) VALUES (new.id, new.content);
   END`,
  `CREATE TRIGGER conversations_fts_delete AFTER DELETE ON conversations BEGIN
     INSERT INTO conversations_fts(conversations_fts, rowid, content) VALUES ('delete', old.id, old.content);
   END`,
  `CREATE TRIGGER conversations_fts_update AFTER UPDATE OF content ON conversations BEGIN
     INSERT INTO conversations_fts(conversations_fts, rowid, content) VALUES ('delete', old.id, old.content);
     INSERT INTO conversations_fts(rowid, content) VALUES (new.id, new.content);
   END`,
];

const POSTGRES_FTS = [
  `ALTER TABLE conversations ADD COLUMN search_vector tsvector
     GENERATED ALWAYS AS (to_tsvector('simple', coalesce(content, ''))) STORED`,
  `CREATE INDEX idx_conversations_search ON conversations USING GIN (search_vector)`,
];

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('conversations', (t) => {
    t.increments('id');
    t.text('ws_id').notNullable();
    t.text('timestamp').notNullable();
    t.text('role').notNullable();
    // Plain text of the content (indexed); content_parts holds the JSON parts when the content was a list.
    t.text('content').notNullable().defaultTo('');
    t.text('content_parts').nullable();
    t.text('tool_name').nullable();
    t.text('tool_call_id').nullable();
    t.text('tool_calls').nullable();
    t.text('provider_data').nullable();
    t.text('reasoning').nullable();
    t.integer('is_error').nullable();
    t.index(['ws_id', 'id'], 'idx_conversations_ws');
  });
  const statements = knex.client.config.client === 'pg' ? POSTGRES_FTS : SQLITE_FTS;
  for (const sql of statements) await knex.raw(sql);
}

export async function down(knex: Knex): Promise<void> {
  if (knex.client.config.client !== 'pg') await knex.raw('DROP TABLE IF EXISTS conversations_fts');
  await knex.schema.dropTable('conversations');
}
