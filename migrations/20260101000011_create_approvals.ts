/** Creates approvals (durable approval requests; `seq` orders pending rows oldest first). */
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('approvals', (t) => {
    t.increments('seq');
    t.text('approval_id').notNullable().unique();
    t.text('ws_id').notNullable();
    t.text('turn_id').notNullable().defaultTo('');
    t.text('kind').notNullable().defaultTo('tools');
    t.text('owner_user_id').notNullable().defaultTo('');
    t.text('items').notNullable().defaultTo('[]');
    t.text('state').notNullable().defaultTo('pending');
    t.integer('always').notNullable().defaultTo(0);
    t.text('feedback').nullable();
    t.text('decided_by').nullable();
    t.text('channel_type').nullable();
    t.text('channel_id').nullable();
    t.text('message_id').nullable();
    t.text('created').notNullable();
    t.text('decided').nullable();
    t.index(['ws_id', 'state'], 'idx_approvals_ws_state');
    t.index(['state'], 'idx_approvals_state');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('approvals');
}
