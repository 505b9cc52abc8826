/**
 * Creates the Slack installation store (slack.client_id, HTTP mode; docs/design/channels.md): `slack_installs` (one
 * row per workspace that installed the app; `bot_token` holds AES-256-GCM ciphertext only), `slack_team_keys` (which
 * workspace a channel or user belongs to, so an outbound call uses that workspace's token) and `slack_oauth_states`
 * (the install flow's single-use `state` values, by hash).
 */
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('slack_installs', (t) => {
    t.text('team_id').primary();
    t.text('enterprise_id');
    t.text('team_name').notNullable();
    t.text('app_id');
    t.text('bot_user_id').notNullable();
    t.text('bot_id').notNullable();
    t.text('bot_token').notNullable();
    t.text('bot_scopes').notNullable();
    t.text('installer_user_id');
    t.text('installed_at').notNullable();
    t.text('updated_at').notNullable();
  });
  await knex.schema.createTable('slack_team_keys', (t) => {
    t.text('key').primary();
    t.text('team_id').notNullable().index();
    t.text('updated_at').notNullable();
  });
  await knex.schema.createTable('slack_oauth_states', (t) => {
    t.text('state_hash').primary();
    t.text('install_options').notNullable();
    t.text('expires_at').notNullable();
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('slack_oauth_states');
  await knex.schema.dropTable('slack_team_keys');
  await knex.schema.dropTable('slack_installs');
}
