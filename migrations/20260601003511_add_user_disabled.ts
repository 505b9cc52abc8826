/**
 * Adds users.disabled: a disabled user keeps their data but is treated as unlinked everywhere (their platform messages,
 * clicks and commands are refused, their API tokens do not link) until enabled again (docs/decisions/0046-approval-grants.md).
 */
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('users', (t) => {
    t.integer('disabled').notNullable().defaultTo(0);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('users', (t) => {
    t.dropColumn('disabled');
  });
}
