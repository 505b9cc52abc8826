/**
 * Creates approval_grants: standing approvals ("Always", or made by an admin) with a scope (`conversation`: one
 * workstream, `user`: every conversation the user owns, `channel`: every conversation routed from one platform
 * channel), the approval-label glob and optional argument glob they cover, an optional expiry and the revocation.
 * Rows are kept after revocation or expiry so who granted what stays visible (docs/decisions/0046-approval-grants.md).
 */
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('approval_grants', (t) => {
    t.string('grant_id', 64).primary();
    t.string('scope', 16).notNullable();
    /** The workstream id, the user id, or `<platform>:<channel id>`. */
    t.string('scope_key', 255).notNullable();
    t.text('label').notNullable();
    t.text('args_glob').nullable();
    t.string('created_by', 64).notNullable();
    /** The approval whose "Always" made it; null for grants made by an admin. */
    t.string('approval_id', 64).nullable();
    t.text('created').notNullable();
    t.text('expires').nullable();
    t.text('revoked').nullable();
    t.string('revoked_by', 64).nullable();
    t.index(['scope', 'scope_key'], 'idx_approval_grants_scope');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('approval_grants');
}
