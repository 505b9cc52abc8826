/**
 * Creates admin_audit: one row per admin change (API or CLI): who made it (the admin token's subject or `cli:<OS
 * user>`), what (`policy.add`, `mcp.reload`, …), the target, the outcome (`ok` or the error code) and when
 * (docs/decisions/0035-admin-credential.md). Rows are only ever appended.
 */
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('admin_audit', (t) => {
    t.increments('audit_id').primary();
    t.text('actor').notNullable();
    t.text('action').notNullable();
    t.text('target').notNullable().defaultTo('');
    t.text('outcome').notNullable();
    /** A short detail without secrets (e.g. the policy's pattern and action); '' when none. */
    t.text('detail').notNullable().defaultTo('');
    t.text('created').notNullable();
    t.index(['created'], 'idx_admin_audit_created');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('admin_audit');
}
