/**
 * Creates queued_messages: a message a workstream accepted while a turn ran (the writer saw it queued) and has not
 * started yet. The row goes when its turn begins (in the same transaction as the turn's journal row), so a restart or
 * a takeover runs exactly the messages that were still waiting, in order (docs/decisions/0030-queued-messages-and-stop-order.md).
 */
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('queued_messages', (t) => {
    /** The turn the message will start (its job's id). */
    t.text('turn_id').primary();
    t.text('ws_id').notNullable();
    /** The message as JSON: a string, or content parts (text, attached images). */
    t.text('content').notNullable();
    /** 'user' or 'watch' (who sent it). */
    t.text('origin').notNullable().defaultTo('user');
    /** Acceptance order within the workstream. */
    t.bigInteger('seq').notNullable();
    t.text('created').notNullable();
    t.index(['ws_id', 'seq'], 'idx_queued_messages_ws');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('queued_messages');
}
