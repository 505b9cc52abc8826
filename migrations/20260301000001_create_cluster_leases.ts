/**
 * Creates the scale-out tables (docs/architecture.md §9, ADR 0021): which instance runs a workstream
 * (`workstream_leases`), which instance holds a Discord shard (`shard_leases`), and the inbound work one instance
 * hands to the lease holder (`cluster_handoffs`; the row is the truth, a PostgreSQL NOTIFY only wakes the holder).
 * Times are epoch milliseconds; `holder` is the instance's service id (`services.service_id`).
 */
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('workstream_leases', (t) => {
    t.text('workstream_id').primary();
    t.text('holder').notNullable();
    t.bigInteger('expires_at').notNullable();
    t.bigInteger('acquired_at').notNullable();
    t.index(['holder'], 'idx_workstream_leases_holder');
    t.index(['expires_at'], 'idx_workstream_leases_expires');
  });
  await knex.schema.createTable('shard_leases', (t) => {
    /** The bot the shards belong to (the Discord application id, or a hash of the token when it is not known). */
    t.text('bot').notNullable();
    t.integer('shard_id').notNullable();
    t.integer('shard_count').notNullable();
    t.text('holder').notNullable();
    t.bigInteger('expires_at').notNullable();
    t.bigInteger('acquired_at').notNullable();
    t.primary(['bot', 'shard_id']);
    t.index(['holder'], 'idx_shard_leases_holder');
  });
  await knex.schema.createTable('cluster_handoffs', (t) => {
    t.bigIncrements('id').primary();
    /** The instance that should do the work (the lease holder when the row was written). */
    t.text('target').notNullable();
    t.text('workstream_id').notNullable();
    /** What is handed over: 'inbound' (a message), 'interaction' (a click or form), 'notify-reply', 'decision'. */
    t.text('kind').notNullable();
    /** JSON of the event as the receiving instance saw it. */
    t.text('payload').notNullable();
    t.bigInteger('created_at').notNullable();
    /** Set by the conditional claim of whoever does the work (the target, or a taker-over after it died). */
    t.bigInteger('claimed_at').nullable();
    t.text('claimed_by').nullable();
    t.index(['target', 'claimed_at'], 'idx_cluster_handoffs_target');
    t.index(['workstream_id'], 'idx_cluster_handoffs_workstream');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('cluster_handoffs');
  await knex.schema.dropTable('shard_leases');
  await knex.schema.dropTable('workstream_leases');
}
