/** WatchStore on knex: periodic shell polls and their progress. */
import type { Knex } from 'knex';
import { StorageError } from '../shared/errors.js';
import { isoNow } from '../shared/time.js';
import {
  definedOnly,
  fromDbBool,
  nullableText,
  text,
  toDbBool,
  toNullableNumber,
  toNumber,
  type DbRow,
} from './rows.js';
import { guard } from './storage-errors.js';
import type { WatchPatch, WatchRow, WatchStore } from './watch-store.js';

type WatchInput = Pick<
  WatchRow,
  'watchId' | 'wsId' | 'name' | 'command' | 'intervalSecs' | 'stopOn' | 'maxPolls' | 'nextPoll'
> & {
  createdBy?: string;
  nodeId?: string;
};

function toWatch(row: DbRow): WatchRow {
  return {
    watchId: text(row.watch_id),
    wsId: text(row.ws_id),
    nodeId: text(row.node_id),
    name: text(row.name),
    command: text(row.command),
    intervalSecs: toNumber(row.interval_secs),
    stopOn: nullableText(row.stop_on),
    maxPolls: toNumber(row.max_polls),
    pollCount: toNumber(row.poll_count),
    lastOutput: nullableText(row.last_output),
    lastExitCode: toNullableNumber(row.last_exit_code),
    lastPoll: nullableText(row.last_poll),
    nextPoll: nullableText(row.next_poll),
    active: fromDbBool(row.active),
    createdBy: text(row.created_by),
    created: text(row.created),
    updated: text(row.updated),
  };
}

function patchColumns(patch: WatchPatch): Record<string, unknown> {
  return definedOnly({
    name: patch.name,
    poll_count: patch.pollCount,
    last_output: patch.lastOutput,
    last_exit_code: patch.lastExitCode,
    last_poll: patch.lastPoll,
    next_poll: patch.nextPoll,
    active: patch.active === undefined ? undefined : toDbBool(patch.active),
  });
}

export class KnexWatchStore implements WatchStore {
  constructor(private readonly knex: Knex) {}

  /** Insert-or-ignore: an existing id keeps its row, which is returned. */
  create(input: WatchInput): Promise<WatchRow> {
    return guard('watches.create', async () => {
      const now = isoNow();
      await this.knex('watches')
        .insert({
          watch_id: input.watchId,
          ws_id: input.wsId,
          node_id: input.nodeId ?? '',
          name: input.name,
          command: input.command,
          interval_secs: input.intervalSecs,
          stop_on: input.stopOn,
          max_polls: input.maxPolls,
          poll_count: 0,
          next_poll: input.nextPoll,
          active: 1,
          created_by: input.createdBy ?? '',
          created: now,
          updated: now,
        })
        .onConflict('watch_id')
        .ignore();
      const row = await this.get(input.watchId);
      if (row === undefined) throw new StorageError('STORAGE_ERROR', 'watches.create: row missing after insert');
      return row;
    });
  }

  get(watchId: string): Promise<WatchRow | undefined> {
    return guard('watches.get', async () => {
      const row = (await this.knex('watches').where({ watch_id: watchId }).first()) as DbRow | undefined;
      return row ? toWatch(row) : undefined;
    });
  }

  listForWorkstream(wsId: string): Promise<WatchRow[]> {
    return guard('watches.listForWorkstream', async () => {
      const rows = (await this.knex('watches')
        .where({ ws_id: wsId, active: 1 })
        .orderBy([{ column: 'created', order: 'desc' }, { column: 'watch_id' }])) as DbRow[];
      return rows.map(toWatch);
    });
  }

  listDue(nowIso: string): Promise<WatchRow[]> {
    return guard('watches.listDue', async () => {
      const rows = (await this.knex('watches')
        .where({ active: 1 })
        .whereNotNull('next_poll')
        .andWhere('next_poll', '<=', nowIso)
        .orderBy([{ column: 'next_poll' }, { column: 'watch_id' }])) as DbRow[];
      return rows.map(toWatch);
    });
  }

  claim(watchId: string, expectedNextPoll: string, leaseUntil: string): Promise<boolean> {
    return guard('watches.claim', async () => {
      const changed = await this.knex('watches')
        .where({ watch_id: watchId, active: 1, next_poll: expectedNextPoll })
        .update({ next_poll: leaseUntil, updated: isoNow() });
      return changed > 0;
    });
  }

  update(watchId: string, patch: WatchPatch): Promise<boolean> {
    return guard('watches.update', async () => {
      const changed = await this.knex('watches')
        .where({ watch_id: watchId })
        .update({ ...patchColumns(patch), updated: isoNow() });
      return changed > 0;
    });
  }

  delete(watchId: string): Promise<boolean> {
    return guard('watches.delete', async () => (await this.knex('watches').where({ watch_id: watchId }).delete()) > 0);
  }
}
