/** Creates services (the heartbeat registry of running gateways). */
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('services', (t) => {
    t.text('service_type').notNullable();
    t.text('service_id').notNullable();
    t.text('url').notNullable();
    t.text('metadata').notNullable().defaultTo('{}');
    t.text('last_heartbeat').notNullable();
    t.text('created').notNullable();
    t.primary(['service_type', 'service_id']);
    t.index(['service_type', 'last_heartbeat'], 'idx_services_type_heartbeat');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('services');
}
