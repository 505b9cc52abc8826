/**
 * Creates elicitation_forms: the open MCP elicitation forms (ADR 0052), so a form card is answerable on any instance.
 * The instance whose call waits (`holder`) writes the row when it posts the card; whichever instance receives the
 * submission writes `answer` once (a conditional UPDATE); the waiting call reads it. Rows go once expired.
 */
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('elicitation_forms', (t) => {
    t.text('form_id').primary();
    t.text('holder').notNullable();
    t.text('server').notNullable();
    t.text('message').notNullable();
    t.text('requested_schema').notNullable();
    t.text('owner_user_id').notNullable();
    t.text('platform').notNullable();
    t.text('channel_id').notNullable();
    t.bigInteger('expires_at').notNullable();
    t.text('answer');
    t.text('decided_by');
    t.index(['expires_at']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('elicitation_forms');
}
