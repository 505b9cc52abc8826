/**
 * Creates inbound_events: the dedup ledger of every inbound platform event (message, interaction, command), keyed by
 * platform + event key, written before any work. Message rows also carry their conversation and a sortable id, so the
 * newest handled message of a conversation (the catch-up cursor) is read from the same table.
 */
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('inbound_events', (t) => {
    t.text('platform').notNullable();
    t.text('event_key').notNullable();
    /** The conversation (channel or thread id) of a message; '' for interactions. */
    t.text('channel_id').notNullable().defaultTo('');
    /** The platform message id (Discord snowflake, Slack ts); '' for interactions. */
    t.text('message_id').notNullable().defaultTo('');
    /** `message_id` zero-padded so that text order is time order on both platforms. */
    t.text('sort_key').notNullable().defaultTo('');
    /** When the event was recorded (epoch milliseconds). */
    t.bigInteger('received_at').notNullable();
    t.primary(['platform', 'event_key']);
    t.index(['platform', 'channel_id', 'sort_key'], 'idx_inbound_events_cursor');
    t.index(['received_at'], 'idx_inbound_events_received');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('inbound_events');
}
