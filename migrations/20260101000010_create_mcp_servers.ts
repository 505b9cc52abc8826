/** Creates mcp_servers (MCP servers defined in the database). */
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('mcp_servers', (t) => {
    t.text('server_id').primary();
    t.text('name').notNullable().unique();
    t.text('transport').notNullable();
    t.text('command').notNullable().defaultTo('');
    t.text('args').notNullable().defaultTo('[]');
    t.text('url').notNullable().defaultTo('');
    t.text('headers').notNullable().defaultTo('{}');
    t.text('env').notNullable().defaultTo('{}');
    t.integer('auto_approve').notNullable().defaultTo(0);
    t.integer('enabled').notNullable().defaultTo(1);
    t.text('created_by').notNullable().defaultTo('');
    t.text('created').notNullable();
    t.text('updated').notNullable();
    t.index(['enabled'], 'idx_mcp_servers_enabled');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('mcp_servers');
}
