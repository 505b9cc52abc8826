/**
 * Creates turn_journal (one row per turn in flight: its streamed text so far, whether it is itself a resumption) and
 * channel_routes.live_state (what the thread shows of that turn: the live message ids and running tool cards), so a
 * restart can settle every interrupted turn (docs/decisions/0013-crash-safe-turns.md).
 */
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('turn_journal', (t) => {
    t.text('turn_id').primary();
    t.text('ws_id').notNullable();
    t.integer('resumed').notNullable().defaultTo(0);
    t.text('partial_text').notNullable().defaultTo('');
    t.integer('settled').notNullable().defaultTo(0);
    t.text('started').notNullable();
    t.text('updated').notNullable();
    t.index(['ws_id'], 'idx_turn_journal_ws');
  });
  await knex.schema.alterTable('channel_routes', (t) => {
    t.text('live_state').nullable();
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('channel_routes', (t) => {
    t.dropColumn('live_state');
  });
  await knex.schema.dropTable('turn_journal');
}
