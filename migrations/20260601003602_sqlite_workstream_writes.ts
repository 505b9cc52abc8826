/**
 * SQLite only: two views whose INSTEAD OF INSERT triggers write a workstream's hot-path rows in one statement each, as
 * `turn_accepts` does for a turn's *accepted* write (docs/design/durability.md):
 *
 * - `workstream_creates`: a new workstream and its thread's route (a route left by an earlier handling of the same
 *   message moves to it), so there is never a workstream without its thread or a route to a missing workstream;
 * - `workstream_changes`: one row per workstream change of a write group (state, activity time, tokens added) and per
 *   day and model of its usage (added to `usage_daily`, the owner and channel read in the same statement). A row
 *   with no change leaves the workstream as it is; a row with no `day` adds no usage.
 *
 * A statement is atomic in SQLite, its trigger's writes included: no BEGIN/COMMIT of its own. PostgreSQL writes the
 * same rows in the batch's transaction (`knex-workstream-store.ts`, `knex-usage-store.ts`).
 */
import type { Knex } from 'knex';

const CREATES_VIEW = `CREATE VIEW workstream_creates AS SELECT
  NULL AS ws_id, NULL AS user_id, NULL AS name, NULL AS model_alias, NULL AS title, NULL AS state,
  NULL AS auto_approve_tools, NULL AS input_tokens, NULL AS output_tokens, NULL AS node_id, NULL AS created,
  NULL AS updated, NULL AS channel_type, NULL AS channel_id
WHERE 0`;

const CREATES_TRIGGER = `CREATE TRIGGER workstream_creates_insert INSTEAD OF INSERT ON workstream_creates BEGIN
  INSERT INTO workstreams (ws_id, user_id, name, model_alias, title, state, auto_approve_tools, input_tokens,
      output_tokens, node_id, created, updated)
    VALUES (NEW.ws_id, NEW.user_id, NEW.name, NEW.model_alias, NEW.title, NEW.state, NEW.auto_approve_tools,
      NEW.input_tokens, NEW.output_tokens, NEW.node_id, NEW.created, NEW.updated);
  INSERT INTO channel_routes (channel_type, channel_id, ws_id, node_id, owner_user_id, created)
    VALUES (NEW.channel_type, NEW.channel_id, NEW.ws_id, '', NEW.user_id, NEW.created)
    ON CONFLICT (channel_type, channel_id) DO UPDATE SET ws_id = excluded.ws_id, owner_user_id = excluded.owner_user_id;
END`;

const CHANGES_VIEW = `CREATE VIEW workstream_changes AS SELECT
  NULL AS ws_id, NULL AS state, NULL AS touched, NULL AS add_input_tokens, NULL AS add_output_tokens,
  NULL AS day, NULL AS model, NULL AS turns, NULL AS input_tokens, NULL AS output_tokens, NULL AS cached_tokens
WHERE 0`;

// The channel of a route as `channelOfRoute` (src/shared/usage-channel.ts) computes it.
const CHANNEL = `CASE WHEN instr(r.channel_id, ':') > 0 THEN substr(r.channel_id, 1, instr(r.channel_id, ':') - 1)
  ELSE r.channel_id END`;

const CHANGES_TRIGGER = `CREATE TRIGGER workstream_changes_insert INSTEAD OF INSERT ON workstream_changes BEGIN
  UPDATE workstreams SET state = COALESCE(NEW.state, state), updated = COALESCE(NEW.touched, updated),
      input_tokens = input_tokens + COALESCE(NEW.add_input_tokens, 0),
      output_tokens = output_tokens + COALESCE(NEW.add_output_tokens, 0)
    WHERE ws_id = NEW.ws_id AND (NEW.state IS NOT NULL OR NEW.touched IS NOT NULL
      OR COALESCE(NEW.add_input_tokens, 0) > 0 OR COALESCE(NEW.add_output_tokens, 0) > 0);
  INSERT INTO usage_daily (day, ws_id, model, user_id, channel, turns, input_tokens, output_tokens, cached_tokens)
    SELECT NEW.day, NEW.ws_id, NEW.model, w.user_id,
      COALESCE((SELECT MIN(r.channel_type || ':' || ${CHANNEL}) FROM channel_routes r WHERE r.ws_id = NEW.ws_id), ''),
      NEW.turns, NEW.input_tokens, NEW.output_tokens, NEW.cached_tokens
    FROM workstreams w WHERE w.ws_id = NEW.ws_id AND NEW.day IS NOT NULL
    ON CONFLICT (day, ws_id, model) DO UPDATE SET turns = usage_daily.turns + excluded.turns,
      input_tokens = usage_daily.input_tokens + excluded.input_tokens,
      output_tokens = usage_daily.output_tokens + excluded.output_tokens,
      cached_tokens = usage_daily.cached_tokens + excluded.cached_tokens;
END`;

const sqlite = (knex: Knex): boolean => knex.client.config.client !== 'pg';

export async function up(knex: Knex): Promise<void> {
  if (!sqlite(knex)) return;
  for (const statement of [CREATES_VIEW, CREATES_TRIGGER, CHANGES_VIEW, CHANGES_TRIGGER]) await knex.raw(statement);
}

export async function down(knex: Knex): Promise<void> {
  if (!sqlite(knex)) return;
  await knex.raw('DROP TRIGGER IF EXISTS workstream_changes_insert');
  await knex.raw('DROP VIEW IF EXISTS workstream_changes');
  await knex.raw('DROP TRIGGER IF EXISTS workstream_creates_insert');
  await knex.raw('DROP VIEW IF EXISTS workstream_creates');
}
