/** Adds channel_routes.owner_user_id: who owned a thread's workstream, so a reactivated thread keeps its owner. */
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('channel_routes', (t) => {
    t.text('owner_user_id').nullable();
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('channel_routes', (t) => {
    t.dropColumn('owner_user_id');
  });
}
