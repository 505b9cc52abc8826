/**
 * Creates identify_slots: when each Discord identify bucket (`shard_id % max_concurrency`) may identify next, shared
 * by every instance on one database (ADR 0052). `next_at` is epoch ms on the database's clock.
 */
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('identify_slots', (t) => {
    t.text('bucket').primary();
    t.bigInteger('next_at').notNullable();
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('identify_slots');
}
