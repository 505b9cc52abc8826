/**
 * SQLite only: the view `turn_accepts`, whose INSTEAD OF INSERT trigger writes a turn's *accepted* commit point
 * (docs/design/durability.md) in one statement: the message's inbound ledger row (inserted settled, or its pending
 * claim settled, fenced), the user's message, the removal of its waiting row, and the turn's journal row. A statement
 * is atomic in SQLite, triggers included, so the four rows need no BEGIN/COMMIT of their own: one round trip to the
 * driver's thread instead of five. A claim another process took over aborts the statement ('sandpiper: inbound claim
 * lost'), which leaves nothing written. PostgreSQL writes the same rows in the batch's transaction
 * (`knex-turn-journal-store.ts`). A migration that adds a column to `conversations` that a user message sets must add
 * it here too (the storage contract tests read a stored message back).
 */
import type { Knex } from 'knex';

const VIEW = `CREATE VIEW turn_accepts AS SELECT
  NULL AS turn_id, NULL AS ws_id, NULL AS resumed, NULL AS started, NULL AS waited,
  NULL AS event_platform, NULL AS event_key, NULL AS event_channel_id, NULL AS event_message_id,
  NULL AS event_sort_key, NULL AS event_received_at, NULL AS event_claimed_by,
  NULL AS role, NULL AS content, NULL AS content_parts, NULL AS tool_name, NULL AS tool_call_id, NULL AS tool_calls,
  NULL AS provider_data, NULL AS reasoning, NULL AS is_error
WHERE 0`;

// Each part as `knex-turn-journal-store.ts` writes it on PostgreSQL, in the same order. `WHERE` before `ON CONFLICT`
// keeps SQLite's parser from reading the conflict clause as a join constraint. The parts are exported for
// 20260601003603_sqlite_turn_log_writes, which builds the view's later trigger from them.
export const LEDGER_ROW = `INSERT INTO inbound_events (platform, event_key, channel_id, message_id, sort_key, received_at)
    SELECT NEW.event_platform, NEW.event_key, NEW.event_channel_id, NEW.event_message_id, NEW.event_sort_key,
      NEW.event_received_at
    WHERE NEW.event_key IS NOT NULL
    ON CONFLICT (platform, event_key) DO UPDATE SET pending = 0
    WHERE (NEW.event_claimed_by IS NULL AND inbound_events.pending = 1)
      OR inbound_events.claimed_by = NEW.event_claimed_by;
  SELECT RAISE(ABORT, 'sandpiper: inbound claim lost') WHERE NEW.event_claimed_by IS NOT NULL AND changes() = 0;`;
export const MESSAGE_AND_WAITING_REMOVAL = `INSERT INTO conversations (ws_id, timestamp, role, content, content_parts, tool_name, tool_call_id, tool_calls,
      provider_data, reasoning, is_error)
    SELECT NEW.ws_id, NEW.started, NEW.role, NEW.content, NEW.content_parts, NEW.tool_name, NEW.tool_call_id,
      NEW.tool_calls, NEW.provider_data, NEW.reasoning, NEW.is_error
    WHERE NEW.role IS NOT NULL;
  DELETE FROM queued_messages WHERE NEW.waited = 1 AND turn_id = NEW.turn_id;`;
export const JOURNAL_CONFLICT = `ON CONFLICT (ws_id) DO UPDATE SET turn_id = excluded.turn_id, resumed = excluded.resumed,
      partial_text = excluded.partial_text, settled = excluded.settled, started = excluded.started,
      updated = excluded.updated;`;

const TRIGGER = `CREATE TRIGGER turn_accepts_insert INSTEAD OF INSERT ON turn_accepts BEGIN
  ${LEDGER_ROW}
  ${MESSAGE_AND_WAITING_REMOVAL}
  INSERT INTO turn_journal (turn_id, ws_id, resumed, partial_text, settled, started, updated)
    VALUES (NEW.turn_id, NEW.ws_id, NEW.resumed, '', 0, NEW.started, NEW.started)
    ${JOURNAL_CONFLICT}
END`;

const sqlite = (knex: Knex): boolean => knex.client.config.client !== 'pg';

export async function up(knex: Knex): Promise<void> {
  if (!sqlite(knex)) return;
  await knex.raw(VIEW);
  await knex.raw(TRIGGER);
}

export async function down(knex: Knex): Promise<void> {
  if (!sqlite(knex)) return;
  await knex.raw('DROP TRIGGER IF EXISTS turn_accepts_insert');
  await knex.raw('DROP VIEW IF EXISTS turn_accepts');
}
