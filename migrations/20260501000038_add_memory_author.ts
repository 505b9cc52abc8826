/**
 * Adds structured_memories.author: who last wrote the memory (a username, or '' for rows written before). Injected
 * memories reach the model fenced as data naming their author (docs/decisions/0035-admin-credential.md).
 */
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('structured_memories', (t) => {
    t.text('author').notNullable().defaultTo('');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('structured_memories', (t) => {
    t.dropColumn('author');
  });
}
