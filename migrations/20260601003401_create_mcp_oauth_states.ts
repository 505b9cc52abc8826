/**
 * Creates mcp_oauth_states: pending MCP OAuth authorizations, so the callback works on any instance
 * (docs/design/mcp-oauth.md). A row is keyed by the SHA-256 of its `state` (the state itself is never stored), bound
 * to user, server and conversation, consumed once (`used_at`), expiring (`expires_at`, epoch ms); `outcome` tells the
 * waiting call how it ended. Adds `expires_at` to mcp_oauth_credentials so tokens are refreshed before use.
 */
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('mcp_oauth_states', (t) => {
    t.text('state_hash').primary();
    t.text('server').notNullable();
    t.text('user_id').notNullable();
    t.text('conversation_id').notNullable();
    t.text('verifier');
    t.bigInteger('expires_at').notNullable();
    t.bigInteger('used_at');
    t.text('outcome');
    t.index(['expires_at']);
  });
  await knex.schema.alterTable('mcp_oauth_credentials', (t) => {
    t.bigInteger('expires_at');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('mcp_oauth_credentials', (t) => {
    t.dropColumn('expires_at');
  });
  await knex.schema.dropTable('mcp_oauth_states');
}
