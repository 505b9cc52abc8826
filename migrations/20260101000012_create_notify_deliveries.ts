/** Creates notify_deliveries (posted notification ↔ workstream, for routing replies). */
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('notify_deliveries', (t) => {
    t.increments('seq');
    t.text('delivery_id').notNullable().unique();
    t.text('ws_id').notNullable();
    t.text('channel_type').notNullable();
    t.text('channel_id').notNullable();
    t.text('message_id').notNullable();
    t.text('recipient').notNullable().defaultTo('');
    t.text('created').notNullable();
    t.index(['channel_type', 'message_id'], 'idx_notify_deliveries_message');
    t.index(['channel_type', 'channel_id'], 'idx_notify_deliveries_channel');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('notify_deliveries');
}
