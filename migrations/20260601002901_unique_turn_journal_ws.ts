/**
 * Makes turn_journal.ws_id unique (a workstream has at most one turn in flight), so the *accepted* write replaces the
 * workstream's row with one upsert instead of a delete and an insert (docs/design/durability.md). Older duplicate rows
 * of a workstream (none are written; the delete kept it so) go first, the newest kept.
 */
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.raw(
    `DELETE FROM turn_journal WHERE EXISTS (SELECT 1 FROM turn_journal newer WHERE newer.ws_id = turn_journal.ws_id AND
      (newer.started > turn_journal.started OR (newer.started = turn_journal.started AND newer.turn_id > turn_journal.turn_id)))`,
  );
  await knex.schema.alterTable('turn_journal', (t) => {
    t.dropIndex(['ws_id'], 'idx_turn_journal_ws');
    t.unique(['ws_id'], { indexName: 'uq_turn_journal_ws' });
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('turn_journal', (t) => {
    t.dropUnique(['ws_id'], 'uq_turn_journal_ws');
    t.index(['ws_id'], 'idx_turn_journal_ws');
  });
}
