/** Creates workstreams (one row per conversation: settings, token counters, lease). */
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('workstreams', (t) => {
    t.text('ws_id').primary();
    t.text('node_id').notNullable().defaultTo('');
    t.text('user_id').notNullable().defaultTo('');
    t.text('alias').nullable().unique();
    t.text('title').notNullable().defaultTo('');
    t.text('name').notNullable().defaultTo('');
    t.text('state').notNullable().defaultTo('idle');
    t.text('model_alias').notNullable().defaultTo('');
    t.text('auto_approve_tools').notNullable().defaultTo('[]');
    t.bigInteger('input_tokens').notNullable().defaultTo(0);
    t.bigInteger('output_tokens').notNullable().defaultTo(0);
    t.text('created').notNullable();
    t.text('updated').notNullable();
    t.index(['node_id'], 'idx_workstreams_node_id');
    t.index(['state'], 'idx_workstreams_state');
    t.index(['user_id'], 'idx_workstreams_user_id');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('workstreams');
}
