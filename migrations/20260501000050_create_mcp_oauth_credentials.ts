/**
 * Creates mcp_oauth_credentials: per-user OAuth tokens (and per-server client registrations, user_id '') for MCP
 * servers with `auth = "oauth"`. `secret` holds AES-256-GCM ciphertext only (docs/design/mcp-oauth.md).
 */
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('mcp_oauth_credentials', (t) => {
    t.text('server').notNullable();
    t.text('user_id').notNullable();
    t.text('kind').notNullable();
    t.text('secret').notNullable();
    t.text('updated').notNullable();
    t.primary(['server', 'user_id', 'kind']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('mcp_oauth_credentials');
}
