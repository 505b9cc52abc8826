/** Creates structured_memories, unique by (name, scope, scope_id). */
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('structured_memories', (t) => {
    t.text('memory_id').primary();
    t.text('name').notNullable();
    t.text('description').notNullable().defaultTo('');
    t.text('type').notNullable().defaultTo('project');
    t.text('scope').notNullable().defaultTo('global');
    t.text('scope_id').notNullable().defaultTo('');
    t.text('content').notNullable();
    t.text('created').notNullable();
    t.text('updated').notNullable();
    t.text('last_accessed').notNullable().defaultTo('');
    t.integer('access_count').notNullable().defaultTo(0);
    t.unique(['name', 'scope', 'scope_id'], { indexName: 'uq_smem_name_scope' });
    t.index(['scope', 'scope_id'], 'idx_smem_scope');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('structured_memories');
}
