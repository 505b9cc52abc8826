/** WorkstreamStore on knex: one row per conversation with settings, token counters and lease. */
import type { Knex } from 'knex';
import { isoNow } from '../shared/time.js';
import { definedOnly, parseStringArray, text, toNumber, type DbRow } from './rows.js';
import { conflictError, guard, isUniqueViolation } from './storage-errors.js';
import { isPostgres } from './db.js';
import { addUsageRows } from './knex-usage-store.js';
import { isSqlite } from './sqlite-statements.js';
import { routeKey, workstreamKey } from './merged-statements.js';
import { guardAfter, TickWriter } from './tick-writer.js';
import type {
  WorkstreamChange,
  WorkstreamPatch,
  WorkstreamRoute,
  WorkstreamRow,
  WorkstreamState,
  WorkstreamStore,
} from './workstream-store.js';

const STATES: readonly WorkstreamState[] = ['idle', 'thinking', 'running', 'attention', 'error', 'closed'];

function toState(value: unknown): WorkstreamState {
  return STATES.find((state) => state === value) ?? 'idle';
}

function toWorkstream(row: DbRow): WorkstreamRow {
  return {
    wsId: text(row.ws_id),
    userId: text(row.user_id),
    name: text(row.name),
    title: text(row.title),
    state: toState(row.state),
    modelAlias: text(row.model_alias),
    autoApproveTools: parseStringArray(row.auto_approve_tools),
    inputTokens: toNumber(row.input_tokens),
    outputTokens: toNumber(row.output_tokens),
    nodeId: text(row.node_id),
    created: text(row.created),
    updated: text(row.updated),
  };
}

function patchColumns(patch: WorkstreamPatch): Record<string, unknown> {
  return definedOnly({
    name: patch.name,
    title: patch.title,
    state: patch.state,
    model_alias: patch.modelAlias,
    auto_approve_tools: patch.autoApproveTools === undefined ? undefined : JSON.stringify(patch.autoApproveTools),
    node_id: patch.nodeId,
  });
}

const tokens = (value: number | undefined): number => Math.max(0, Math.trunc(value ?? 0));

function changeColumns(knex: Knex, change: WorkstreamChange): Record<string, unknown> {
  const columns: Record<string, unknown> = {};
  if (change.state !== undefined) columns.state = change.state;
  if (change.touched !== undefined) columns.updated = change.touched;
  if (tokens(change.inputTokens) > 0) columns.input_tokens = knex.raw('input_tokens + ?', [tokens(change.inputTokens)]);
  if (tokens(change.outputTokens) > 0)
    columns.output_tokens = knex.raw('output_tokens + ?', [tokens(change.outputTokens)]);
  return columns;
}

/** SQLite binds at most 999 values per statement; a `workstream_changes` row binds 11. */
const CHANGE_ROWS_PER_STATEMENT = 80;

const NO_USAGE = { day: null, model: null, turns: null, input_tokens: null, output_tokens: null, cached_tokens: null };

/**
 * A change as rows of `workstream_changes`: the workstream's part (state, activity time, tokens) with its first day
 * and model of usage, then one row per further day and model; none for a change that changes nothing.
 */
function changeRows(change: WorkstreamChange): Array<Record<string, unknown>> {
  const own = {
    ws_id: change.wsId,
    state: change.state ?? null,
    touched: change.touched ?? null,
    add_input_tokens: tokens(change.inputTokens),
    add_output_tokens: tokens(change.outputTokens),
  };
  const usage = change.usage ?? [];
  if (usage.length === 0) {
    const changes = own.state !== null || own.touched !== null || own.add_input_tokens > 0 || own.add_output_tokens > 0;
    return changes ? [{ ...own, ...NO_USAGE }] : [];
  }
  const usageOnly = { ws_id: change.wsId, state: null, touched: null, add_input_tokens: 0, add_output_tokens: 0 };
  return usage.map((delta, index) => ({
    ...(index === 0 ? own : usageOnly),
    day: delta.day,
    model: delta.model,
    turns: delta.turns,
    input_tokens: delta.inputTokens,
    output_tokens: delta.outputTokens,
    cached_tokens: delta.cachedTokens,
  }));
}

/**
 * The keys of the rows a group of changes touches (merged-statements.ts): its workstreams. Their `usage_daily` rows
 * are written by no other write of the engine.
 */
function changedWorkstreams(changes: readonly WorkstreamChange[]): string[] {
  return [...new Set(changes.map((change) => workstreamKey(change.wsId)))];
}

export class KnexWorkstreamStore implements WorkstreamStore {
  /** SQLite writes a new workstream with its route, and a group's changes, in one statement each (views). */
  private readonly sqlite: boolean;

  constructor(
    private readonly knex: Knex,
    /** Told of every workstream id about to be inserted (the memory counts know it has no memories yet). */
    private readonly onCreate: (wsId: string) => void = () => undefined,
    /** New rows and the write-behind's changes share one transaction per event-loop turn (ADR 0026). */
    private readonly writer: TickWriter = new TickWriter(knex),
  ) {
    this.sqlite = isSqlite(knex);
  }

  create(
    row: Pick<WorkstreamRow, 'wsId' | 'userId' | 'name' | 'modelAlias'>,
    options: { route?: WorkstreamRoute } = {},
  ): Promise<WorkstreamRow> {
    // Told at once: the first model call asks for the counts while the row commits.
    this.onCreate(row.wsId);
    return this.insert(row, options.route);
  }

  private insert(
    row: Pick<WorkstreamRow, 'wsId' | 'userId' | 'name' | 'modelAlias'>,
    route: WorkstreamRoute | undefined,
  ): Promise<WorkstreamRow> {
    return guard('workstreams.create', async () => {
      const now = isoNow();
      const dbRow = {
        ws_id: row.wsId,
        user_id: row.userId,
        name: row.name,
        model_alias: row.modelAlias,
        title: '',
        state: 'idle',
        auto_approve_tools: '[]',
        input_tokens: 0,
        output_tokens: 0,
        node_id: '',
        created: now,
        updated: now,
      };
      try {
        const routeKeys = route === undefined ? [] : [routeKey(route.channelType, route.channelId)];
        const touches = [workstreamKey(row.wsId), ...routeKeys];
        if (route === undefined) await this.writer.writeRow({ insertInto: 'workstreams', row: dbRow }, touches);
        else if (this.sqlite)
          // Both rows in one statement (the `workstream_creates` view's trigger; its migration), and one statement with
          // the group's other new workstreams.
          await this.writer.writeRow(
            {
              insertInto: 'workstream_creates',
              row: { ...dbRow, channel_type: route.channelType, channel_id: route.channelId },
            },
            touches,
          );
        else
          await this.writer.write(
            async (db) => {
              await db.run(db.table('workstreams').insert(dbRow));
              await db.run(
                db
                  .table('channel_routes')
                  .insert({
                    channel_type: route.channelType,
                    channel_id: route.channelId,
                    ws_id: row.wsId,
                    node_id: '',
                    owner_user_id: row.userId,
                    created: now,
                  })
                  // A route left by an earlier handling of the same message (killed before it was accepted) moves here.
                  .onConflict(['channel_type', 'channel_id'])
                  .merge(['ws_id', 'owner_user_id']),
              );
            },
            { touches },
          );
      } catch (error) {
        if (isUniqueViolation(error)) throw conflictError('a workstream with this id exists', error);
        throw error;
      }
      return toWorkstream(dbRow);
    });
  }

  get(wsId: string): Promise<WorkstreamRow | undefined> {
    return guardAfter(this.writer, 'workstreams.get', async () => {
      const row = (await this.knex('workstreams').where({ ws_id: wsId }).first()) as DbRow | undefined;
      return row ? toWorkstream(row) : undefined;
    });
  }

  update(wsId: string, patch: WorkstreamPatch): Promise<boolean> {
    return guardAfter(this.writer, 'workstreams.update', async () => {
      const changed = await this.knex('workstreams')
        .where({ ws_id: wsId })
        .update({ ...patchColumns(patch), updated: isoNow() });
      return changed > 0;
    });
  }

  addUsage(wsId: string, inputTokens: number, outputTokens: number): Promise<void> {
    return guardAfter(this.writer, 'workstreams.addUsage', async () => {
      await this.knex('workstreams')
        .where({ ws_id: wsId })
        .update({
          input_tokens: this.knex.raw('input_tokens + ?', [Math.max(0, Math.trunc(inputTokens))]),
          output_tokens: this.knex.raw('output_tokens + ?', [Math.max(0, Math.trunc(outputTokens))]),
        });
    });
  }

  applyChanges(changes: readonly WorkstreamChange[]): Promise<void> {
    if (changes.length === 0) return Promise.resolve();
    if (this.sqlite) return this.applyChangesInRows(changes);
    const updates = changes
      .map((change) => ({ wsId: change.wsId, columns: changeColumns(this.knex, change) }))
      .filter((update) => Object.keys(update.columns).length > 0);
    // The day's usage rows join the same transaction: one more statement per group, not per turn (docs/design/usage.md).
    const usage = changes.flatMap(({ wsId, usage: deltas }) =>
      deltas === undefined || deltas.length === 0 ? [] : [{ wsId, usage: deltas }],
    );
    if (updates.length === 0 && usage.length === 0) return Promise.resolve();
    return guard('workstreams.applyChanges', () =>
      this.writer.write(
        async (db) => {
          for (const { wsId, columns } of updates)
            await db.run(db.table('workstreams').where({ ws_id: wsId }).update(columns));
          if (usage.length > 0) await addUsageRows(db, isPostgres(this.knex), usage);
        },
        { oneStatement: updates.length === 1 && usage.length === 0, touches: changedWorkstreams(changes) },
      ),
    );
  }

  /**
   * SQLite: the group's changes and usage as rows of the `workstream_changes` view (its migration), whose trigger
   * updates each workstream and adds its usage: one statement per `CHANGE_ROWS_PER_STATEMENT` rows.
   */
  private applyChangesInRows(changes: readonly WorkstreamChange[]): Promise<void> {
    const rows = changes.flatMap(changeRows);
    if (rows.length === 0) return Promise.resolve();
    return guard('workstreams.applyChanges', () =>
      this.writer.write(
        async (db) => {
          for (let i = 0; i < rows.length; i += CHANGE_ROWS_PER_STATEMENT) {
            await db.run(db.table('workstream_changes').insert(rows.slice(i, i + CHANGE_ROWS_PER_STATEMENT)));
          }
        },
        { oneStatement: rows.length <= CHANGE_ROWS_PER_STATEMENT, touches: changedWorkstreams(changes) },
      ),
    );
  }

  list(filter: { userId?: string; state?: WorkstreamState } = {}): Promise<WorkstreamRow[]> {
    return guardAfter(this.writer, 'workstreams.list', async () => {
      const query = this.knex('workstreams');
      if (filter.userId !== undefined) query.where({ user_id: filter.userId });
      if (filter.state !== undefined) query.where({ state: filter.state });
      const rows = (await query.orderBy([
        { column: 'updated', order: 'desc' },
        { column: 'created', order: 'desc' },
        { column: 'ws_id' },
      ])) as DbRow[];
      return rows.map(toWorkstream);
    });
  }

  delete(wsId: string): Promise<boolean> {
    return guardAfter(this.writer, 'workstreams.delete', () =>
      this.knex.transaction(async (trx) => {
        await trx('conversations').where({ ws_id: wsId }).delete();
        const removed = await trx('workstreams').where({ ws_id: wsId }).delete();
        return removed > 0;
      }),
    );
  }
}
