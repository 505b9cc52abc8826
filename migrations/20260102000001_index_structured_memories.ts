/**
 * Full-text index over structured memories (name, description, content), so choosing the memories relevant to
 * a conversation does not scan every row: an FTS5 table kept in sync by triggers on SQLite (it stores its own
 * copy keyed by memory_id: the table has no stable integer rowid), a generated tsvector column on PostgreSQL.
 */
import type { Knex } from 'knex';

const SQLITE_UP = [
  `CREATE VIRTUAL TABLE structured_memories_fts USING fts5(memory_id UNINDEXED, name, description, content)`,
  `INSERT INTO structured_memories_fts(memory_id, name, description, content)
     SELECT memory_id, name, description, content FROM structured_memories`,
  `CREATE TRIGGER structured_memories_fts_insert AFTER INSERT ON structured_memories BEGIN
     INSERT INTO structured_memories_fts(memory_id, name, description, content) VALUES (new.memory_id, new.name, new.description, new.content);
   END`,
  `CREATE TRIGGER structured_memories_fts_delete AFTER DELETE ON structured_memories BEGIN
     DELETE FROM structured_memories_fts WHERE memory_id = old.memory_id;
   END`,
  `CREATE TRIGGER structured_memories_fts_update AFTER UPDATE OF name, description, content ON structured_memories BEGIN
     DELETE FROM structured_memories_fts WHERE memory_id = old.memory_id;
     INSERT INTO structured_memories_fts(memory_id, name, description, content) VALUES (new.memory_id, new.name, new.description, new.content);
   END`,
];

const SQLITE_DOWN = [
  'DROP TRIGGER IF EXISTS structured_memories_fts_insert',
  'DROP TRIGGER IF EXISTS structured_memories_fts_delete',
  'DROP TRIGGER IF EXISTS structured_memories_fts_update',
  'DROP TABLE IF EXISTS structured_memories_fts',
];

const POSTGRES_UP = [
  `ALTER TABLE structured_memories ADD COLUMN search_vector tsvector
     GENERATED ALWAYS AS (to_tsvector('simple', coalesce(name, '') || ' ' || coalesce(description, '') || ' ' || coalesce(content, ''))) STORED`,
  `CREATE INDEX idx_structured_memories_search ON structured_memories USING GIN (search_vector)`,
];

const POSTGRES_DOWN = [
  'DROP INDEX IF EXISTS idx_structured_memories_search',
  'ALTER TABLE structured_memories DROP COLUMN IF EXISTS search_vector',
];

export async function up(knex: Knex): Promise<void> {
  for (const sql of knex.client.config.client === 'pg' ? POSTGRES_UP : SQLITE_UP) await knex.raw(sql);
}

export async function down(knex: Knex): Promise<void> {
  for (const sql of knex.client.config.client === 'pg' ? POSTGRES_DOWN : SQLITE_DOWN) await knex.raw(sql);
}
