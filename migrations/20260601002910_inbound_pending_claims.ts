/**
 * inbound_events.pending and claimed_by: a message's ledger row written before the message is stored (PostgreSQL,
 * where the claim keeps two instances from taking one event, and a single instance's catch-up below its floor) is
 * pending until the message's *waiting* or *accepted* write (or the end of its handling) settles it. A pending row of
 * an instance that died is taken again by catch-up (docs/design/durability.md), so a kill between the claim and the
 * stored message loses nothing.
 */
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('inbound_events', (t) => {
    t.integer('pending').notNullable().defaultTo(0);
    t.text('claimed_by').notNullable().defaultTo('');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('inbound_events', (t) => {
    t.dropColumn('pending');
    t.dropColumn('claimed_by');
  });
}
