/**
 * SQLite only: `turn_accepts` (migration 20260601003601) takes the turn log's two other multi-row writes, so each is
 * one statement too (docs/design/durability.md):
 * - a *waiting* message: its inbound ledger row (fenced as for *accepted*) and its `queued_messages` row
 *   (`queued_seq` set, `begins` 0);
 * - a *steer* joining the running turn: the user's message in the history and the removal of its waiting row
 *   (`waited` 1, `begins` 0).
 * *accepted* sets `begins` 1: its journal row is written as before. The view is write-only, so it is dropped and
 * created again with the new columns. PostgreSQL writes the same rows in the batch's transaction
 * (`knex-turn-journal-store.ts`).
 */
import type { Knex } from 'knex';
import * as previous from './20260601003601_sqlite_turn_accepts.js';

const VIEW = `CREATE VIEW turn_accepts AS SELECT
  NULL AS turn_id, NULL AS ws_id, NULL AS begins, NULL AS resumed, NULL AS started, NULL AS waited,
  NULL AS event_platform, NULL AS event_key, NULL AS event_channel_id, NULL AS event_message_id,
  NULL AS event_sort_key, NULL AS event_received_at, NULL AS event_claimed_by,
  NULL AS role, NULL AS content, NULL AS content_parts, NULL AS tool_name, NULL AS tool_call_id, NULL AS tool_calls,
  NULL AS provider_data, NULL AS reasoning, NULL AS is_error,
  NULL AS queued_content, NULL AS queued_origin, NULL AS queued_seq
WHERE 0`;

// The ledger row and the message as in 20260601003601; `WHERE` before `ON CONFLICT` keeps SQLite's parser from reading
// the conflict clause as a join constraint.
const TRIGGER = `CREATE TRIGGER turn_accepts_insert INSTEAD OF INSERT ON turn_accepts BEGIN
  ${previous.LEDGER_ROW}
  ${previous.MESSAGE_AND_WAITING_REMOVAL}
  INSERT INTO queued_messages (turn_id, ws_id, content, origin, seq, created)
    SELECT NEW.turn_id, NEW.ws_id, NEW.queued_content, NEW.queued_origin, NEW.queued_seq, NEW.started
    WHERE NEW.queued_seq IS NOT NULL;
  INSERT INTO turn_journal (turn_id, ws_id, resumed, partial_text, settled, started, updated)
    SELECT NEW.turn_id, NEW.ws_id, NEW.resumed, '', 0, NEW.started, NEW.started
    WHERE NEW.begins = 1
    ${previous.JOURNAL_CONFLICT}
END`;

const sqlite = (knex: Knex): boolean => knex.client.config.client !== 'pg';

async function dropView(knex: Knex): Promise<void> {
  await knex.raw('DROP TRIGGER IF EXISTS turn_accepts_insert');
  await knex.raw('DROP VIEW IF EXISTS turn_accepts');
}

export async function up(knex: Knex): Promise<void> {
  if (!sqlite(knex)) return;
  await dropView(knex);
  await knex.raw(VIEW);
  await knex.raw(TRIGGER);
}

export async function down(knex: Knex): Promise<void> {
  if (!sqlite(knex)) return;
  await dropView(knex);
  await previous.up(knex);
}
