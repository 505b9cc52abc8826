/** Creates watches (periodic shell polls reporting into a workstream). */
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('watches', (t) => {
    t.text('watch_id').primary();
    t.text('ws_id').notNullable();
    t.text('node_id').notNullable().defaultTo('');
    t.text('name').notNullable();
    t.text('command').notNullable();
    t.double('interval_secs').notNullable();
    t.text('stop_on').nullable();
    t.integer('max_polls').notNullable().defaultTo(100);
    t.integer('poll_count').notNullable().defaultTo(0);
    t.text('last_output').nullable();
    t.integer('last_exit_code').nullable();
    t.text('last_poll').nullable();
    t.text('next_poll').nullable();
    t.integer('active').notNullable().defaultTo(1);
    t.text('created_by').notNullable().defaultTo('');
    t.text('created').notNullable();
    t.text('updated').notNullable();
    t.index(['active', 'next_poll'], 'idx_watches_active_next');
    t.index(['ws_id'], 'idx_watches_ws');
    t.index(['node_id'], 'idx_watches_node');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('watches');
}
