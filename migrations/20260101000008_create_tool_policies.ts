/** Creates tool_policies (glob on approval labels → allow / deny / ask); `seq` keeps insertion order. */
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('tool_policies', (t) => {
    t.increments('seq');
    t.text('policy_id').notNullable().unique();
    t.text('name').notNullable();
    t.text('tool_pattern').notNullable();
    t.text('action').notNullable().defaultTo('ask');
    t.integer('priority').notNullable().defaultTo(0);
    t.text('org_id').notNullable().defaultTo('');
    t.integer('enabled').notNullable().defaultTo(1);
    t.text('created_by').notNullable().defaultTo('');
    t.text('created').notNullable();
    t.text('updated').notNullable();
    t.index(['priority'], 'idx_tool_policies_priority');
    t.index(['org_id'], 'idx_tool_policies_org');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('tool_policies');
}
