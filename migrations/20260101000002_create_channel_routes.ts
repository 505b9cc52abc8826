/** Creates channel_routes (platform thread ↔ workstream). */
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('channel_routes', (t) => {
    t.text('channel_type').notNullable();
    t.text('channel_id').notNullable();
    t.text('ws_id').notNullable();
    t.text('node_id').notNullable().defaultTo('');
    t.text('created').notNullable();
    t.primary(['channel_type', 'channel_id']);
    t.index(['ws_id'], 'idx_channel_routes_ws');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('channel_routes');
}
