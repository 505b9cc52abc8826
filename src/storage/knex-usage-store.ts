/** UsageStore on knex, and the statement that adds a group's usage to `usage_daily` inside the workstream write. */
import type { Knex } from 'knex';
import type { BatchDb } from './batch-db.js';
import { text, toNumber, type DbRow } from './rows.js';
import { guardAfter, type TickWriter } from './tick-writer.js';
import type { UsageDelta, UsageGrouping, UsageLine, UsageStore } from './usage-store.js';

/** SQLite allows 999 bound values per statement; a row binds 7. */
const ROWS_PER_STATEMENT = 100;

const ROW_SQL =
  'SELECT CAST(? AS TEXT) AS day, CAST(? AS TEXT) AS ws_id, CAST(? AS TEXT) AS model, CAST(? AS INTEGER) AS turns, ' +
  'CAST(? AS BIGINT) AS input_tokens, CAST(? AS BIGINT) AS output_tokens, CAST(? AS BIGINT) AS cached_tokens';

/** The channel of a route in SQL, as `channelOfRoute` (src/shared/usage-channel.ts) computes it. */
const SQLITE_CHANNEL =
  "CASE WHEN instr(r.channel_id, ':') > 0 THEN substr(r.channel_id, 1, instr(r.channel_id, ':') - 1) ELSE r.channel_id END";
const PG_CHANNEL = "split_part(r.channel_id, ':', 1)";

/**
 * One statement per (up to 100) rows: the owner and channel are read from the workstream and its route in the same
 * statement (a deleted workstream's usage is skipped), and an existing row of the day and model is added to.
 * `WHERE true` keeps SQLite's parser from reading `ON CONFLICT` as a join constraint.
 */
function upsertSql(rows: number, postgres: boolean): string {
  const values = Array.from({ length: rows }, () => ROW_SQL).join(' UNION ALL ');
  return (
    'INSERT INTO usage_daily (day, ws_id, model, user_id, channel, turns, input_tokens, output_tokens, cached_tokens) ' +
    'SELECT v.day, v.ws_id, v.model, w.user_id, ' +
    `COALESCE((SELECT MIN(r.channel_type || ':' || ${postgres ? PG_CHANNEL : SQLITE_CHANNEL}) FROM channel_routes r WHERE r.ws_id = v.ws_id), ''), ` +
    `v.turns, v.input_tokens, v.output_tokens, v.cached_tokens FROM (${values}) v JOIN workstreams w ON w.ws_id = v.ws_id WHERE true ` +
    'ON CONFLICT (day, ws_id, model) DO UPDATE SET turns = usage_daily.turns + excluded.turns, ' +
    'input_tokens = usage_daily.input_tokens + excluded.input_tokens, output_tokens = usage_daily.output_tokens + excluded.output_tokens, ' +
    'cached_tokens = usage_daily.cached_tokens + excluded.cached_tokens'
  );
}

/** Adds the usage of a write group's workstreams to `usage_daily`, inside that group's transaction. */
export async function addUsageRows(
  db: BatchDb,
  postgres: boolean,
  rows: ReadonlyArray<{ wsId: string; usage: readonly UsageDelta[] }>,
): Promise<void> {
  const flat = rows.flatMap(({ wsId, usage }) => usage.map((delta) => ({ wsId, ...delta })));
  for (let i = 0; i < flat.length; i += ROWS_PER_STATEMENT) {
    const slice = flat.slice(i, i + ROWS_PER_STATEMENT);
    const bindings = slice.flatMap((row) => [
      row.day,
      row.wsId,
      row.model,
      row.turns,
      row.inputTokens,
      row.outputTokens,
      row.cachedTokens,
    ]);
    await db.run(db.raw(upsertSql(slice.length, postgres), bindings));
  }
}

/** The key column of each grouping, and the label beside it. */
const GROUPINGS: Record<UsageGrouping, { key: string; label: string }> = {
  user: { key: 'u.user_id', label: 'MAX(COALESCE(users.username, u.user_id))' },
  channel: { key: 'u.channel', label: 'u.channel' },
  model: { key: 'u.model', label: 'u.model' },
  conversation: { key: 'u.ws_id', label: 'MAX(COALESCE(workstreams.name, u.ws_id))' },
};

function toLine(row: DbRow): UsageLine {
  return {
    key: text(row.group_key),
    label: text(row.label),
    day: text(row.day),
    turns: toNumber(row.turns),
    inputTokens: toNumber(row.input_tokens),
    outputTokens: toNumber(row.output_tokens),
    cachedTokens: toNumber(row.cached_tokens),
  };
}

export class KnexUsageStore implements UsageStore {
  constructor(
    private readonly knex: Knex,
    private readonly writer: TickWriter,
  ) {}

  report(by: UsageGrouping, sinceDay: string): Promise<UsageLine[]> {
    const { key, label } = GROUPINGS[by];
    return guardAfter(this.writer, 'usage.report', async () => {
      const rows = (await this.knex('usage_daily as u')
        .leftJoin('users', 'users.user_id', 'u.user_id')
        .leftJoin('workstreams', 'workstreams.ws_id', 'u.ws_id')
        .where('u.day', '>=', sinceDay)
        .select(
          this.knex.raw(`${key} AS group_key`),
          this.knex.raw(`${label} AS label`),
          'u.day',
          this.knex.raw('SUM(u.turns) AS turns'),
          this.knex.raw('SUM(u.input_tokens) AS input_tokens'),
          this.knex.raw('SUM(u.output_tokens) AS output_tokens'),
          this.knex.raw('SUM(u.cached_tokens) AS cached_tokens'),
        )
        .groupByRaw(`${key}, u.day`)
        .orderBy([{ column: 'u.day', order: 'desc' }])
        .orderByRaw(key)) as DbRow[];
      return rows.map(toLine);
    });
  }

  userTokensOn(userId: string, day: string): Promise<number> {
    return this.tokensOn({ user_id: userId, day }, 'usage.userTokensOn');
  }

  channelTokensOn(channel: string, day: string): Promise<number> {
    return this.tokensOn({ channel, day }, 'usage.channelTokensOn');
  }

  private tokensOn(where: Record<string, string>, what: string): Promise<number> {
    return guardAfter(this.writer, what, async () => {
      const row = (await this.knex('usage_daily')
        .where(where)
        .select(this.knex.raw('SUM(input_tokens + output_tokens) AS total'))
        .first()) as DbRow | undefined;
      return toNumber(row?.total);
    });
  }
}
