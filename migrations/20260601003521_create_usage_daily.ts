/**
 * Creates usage_daily: the tokens each conversation used per UTC day and model, with who (the conversation's owner)
 * and where (its platform thread or DM, `<platform>:<channel id>`), written with the workstream's state and usage
 * (docs/design/usage.md). Read by `sandpiper usage`, the admin API and the token budgets.
 */
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('usage_daily', (t) => {
    /** UTC day, `YYYY-MM-DD`. */
    t.string('day', 10).notNullable();
    t.string('ws_id', 64).notNullable();
    /** The model actually called (a fallback's name when the primary was unreachable). */
    t.string('model', 255).notNullable();
    t.string('user_id', 64).notNullable();
    /** `<platform>:<channel id>` of the conversation's route; '' when it has none (terminal, API). */
    t.string('channel', 320).notNullable().defaultTo('');
    t.integer('turns').notNullable().defaultTo(0);
    t.bigInteger('input_tokens').notNullable().defaultTo(0);
    t.bigInteger('output_tokens').notNullable().defaultTo(0);
    /** Input tokens served from the provider's prompt cache (part of input_tokens), when it reports them. */
    t.bigInteger('cached_tokens').notNullable().defaultTo(0);
    t.primary(['day', 'ws_id', 'model']);
    t.index(['user_id', 'day'], 'idx_usage_daily_user');
    t.index(['day'], 'idx_usage_daily_day');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('usage_daily');
}
