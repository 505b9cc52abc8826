/**
 * SQLite only: the view `route_live_states`, whose INSTEAD OF INSERT trigger records a thread's live message in its
 * route (`channel_routes.live_state`, src/gateway/live-state.ts). As a row insert, the record of many threads' live
 * messages written in one group goes as one statement (docs/design/durability.md, "One write engine"). A row for a
 * route that does not exist changes nothing, as the UPDATE it replaces did. PostgreSQL runs the UPDATE itself
 * (`knex-route-store.ts`).
 */
import type { Knex } from 'knex';

const VIEW = `CREATE VIEW route_live_states AS SELECT
  NULL AS channel_type, NULL AS channel_id, NULL AS live_state
WHERE 0`;

const TRIGGER = `CREATE TRIGGER route_live_states_insert INSTEAD OF INSERT ON route_live_states BEGIN
  UPDATE channel_routes SET live_state = NEW.live_state
    WHERE channel_type = NEW.channel_type AND channel_id = NEW.channel_id;
END`;

const sqlite = (knex: Knex): boolean => knex.client.config.client !== 'pg';

export async function up(knex: Knex): Promise<void> {
  if (!sqlite(knex)) return;
  await knex.raw(VIEW);
  await knex.raw(TRIGGER);
}

export async function down(knex: Knex): Promise<void> {
  if (!sqlite(knex)) return;
  await knex.raw('DROP TRIGGER IF EXISTS route_live_states_insert');
  await knex.raw('DROP VIEW IF EXISTS route_live_states');
}
