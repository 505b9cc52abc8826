/** Creates users, api_tokens and channel_users (platform-user links). */
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('users', (t) => {
    t.text('user_id').primary();
    t.text('username').notNullable().unique();
    t.integer('is_admin').notNullable().defaultTo(0);
    t.text('created').notNullable();
  });
  await knex.schema.createTable('api_tokens', (t) => {
    t.text('token_id').primary();
    t.text('token_hash').notNullable().unique();
    t.text('user_id').notNullable().references('user_id').inTable('users').onDelete('CASCADE');
    t.text('scopes').notNullable().defaultTo('');
    t.text('expires').nullable();
    t.text('created').notNullable();
    t.index(['user_id'], 'idx_api_tokens_user_id');
  });
  await knex.schema.createTable('channel_users', (t) => {
    t.text('channel_type').notNullable();
    t.text('channel_user_id').notNullable();
    t.text('user_id').notNullable();
    t.text('created').notNullable();
    t.primary(['channel_type', 'channel_user_id']);
    t.index(['user_id'], 'idx_channel_users_user_id');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('channel_users');
  await knex.schema.dropTable('api_tokens');
  await knex.schema.dropTable('users');
}
