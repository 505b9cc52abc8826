/** Creates prompt_templates (manual rows and read-only rows synced from MCP servers). */
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('prompt_templates', (t) => {
    t.text('template_id').primary();
    t.text('name').notNullable().unique();
    t.text('category').notNullable().defaultTo('general');
    t.text('content').notNullable();
    t.text('description').notNullable().defaultTo('');
    t.text('variables').notNullable().defaultTo('[]');
    t.integer('is_default').notNullable().defaultTo(0);
    t.text('org_id').notNullable().defaultTo('');
    t.text('created_by').notNullable().defaultTo('');
    t.text('origin').notNullable().defaultTo('manual');
    t.text('mcp_server').notNullable().defaultTo('');
    t.integer('readonly').notNullable().defaultTo(0);
    t.text('created').notNullable();
    t.text('updated').notNullable();
    t.index(['origin'], 'idx_prompt_templates_origin');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('prompt_templates');
}
