/**
 * Creates notify_outbox (one row per notification target: accepted → sent, recovered after a crash) and
 * notify_idempotency (an `Idempotency-Key` of a token subject → the request whose result it replays, for 24 h).
 */
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('notify_outbox', (t) => {
    t.increments('seq');
    t.text('outbox_id').notNullable().unique();
    t.text('request_id').notNullable();
    t.integer('position').notNullable();
    t.text('channel_type').notNullable();
    t.text('channel_id').notNullable();
    t.text('destination_kind').notNullable();
    t.text('destination_id').notNullable();
    t.text('content').notNullable();
    t.text('ws_id').notNullable().defaultTo('');
    t.text('status').notNullable();
    t.integer('attempts').notNullable().defaultTo(0);
    t.text('lease_until').notNullable();
    t.text('message_id');
    t.text('delivered_channel_id');
    t.text('created').notNullable();
    t.text('updated').notNullable();
    t.index(['request_id'], 'idx_notify_outbox_request');
    t.index(['status', 'lease_until'], 'idx_notify_outbox_due');
  });
  await knex.schema.createTable('notify_idempotency', (t) => {
    t.text('subject').notNullable();
    t.text('idempotency_key').notNullable();
    t.text('fingerprint').notNullable();
    t.text('request_id').notNullable();
    t.text('created').notNullable();
    t.primary(['subject', 'idempotency_key']);
    t.index(['created'], 'idx_notify_idempotency_created');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('notify_idempotency');
  await knex.schema.dropTable('notify_outbox');
}
