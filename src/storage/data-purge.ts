/**
 * Removing data for good (ADR 0046): a workstream with every row that names it, a user with everything that is theirs,
 * and the retention purge of old rows. One transaction per call, the same statements on SQLite and PostgreSQL. Folders
 * are the caller's (`removeWorkspaceFolders`): the database holds no paths.
 */
import type { Knex } from 'knex';
import { text, toNumber, type DbRow } from './rows.js';
import { guard } from './storage-errors.js';

/** Rows of a workstream, by table and the column naming it. */
const WORKSTREAM_TABLES: ReadonlyArray<readonly [string, string]> = [
  ['conversations', 'ws_id'],
  ['approvals', 'ws_id'],
  ['turn_journal', 'ws_id'],
  ['queued_messages', 'ws_id'],
  ['notify_deliveries', 'ws_id'],
  ['notify_outbox', 'ws_id'],
  ['watches', 'ws_id'],
  ['workstream_leases', 'workstream_id'],
  ['cluster_handoffs', 'workstream_id'],
];

/** SQLite allows 999 bound values per statement: ids go in slices. */
const SLICE = 500;

function slices<T>(values: readonly T[]): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < values.length; i += SLICE) out.push(values.slice(i, i + SLICE));
  return out;
}

/** Deletes the workstreams and every row naming them (their threads' routes and ledger rows included). */
async function deleteWorkstreams(trx: Knex.Transaction, wsIds: readonly string[]): Promise<void> {
  for (const ids of slices(wsIds)) {
    const routes = (await trx('channel_routes').select('channel_type', 'channel_id').whereIn('ws_id', ids)) as DbRow[];
    for (const route of routes) {
      // The thread's messages, and the message it was opened from (a Discord thread's id is that message's id).
      const thread = text(route.channel_id);
      await trx('inbound_events')
        .where({ platform: text(route.channel_type) })
        .andWhere((q) => q.where({ channel_id: thread }).orWhere({ message_id: thread }))
        .delete();
    }
    await trx('channel_routes').whereIn('ws_id', ids).delete();
    for (const [table, column] of WORKSTREAM_TABLES) await trx(table).whereIn(column, ids).delete();
    await trx('structured_memories').where({ scope: 'workstream' }).whereIn('scope_id', ids).delete();
    await trx('approval_grants').where({ scope: 'conversation' }).whereIn('scope_key', ids).delete();
    await trx('workstreams').whereIn('ws_id', ids).delete();
  }
}

/** What a removal deleted: the workstreams (whose folders the caller removes next). */
export interface RemovedUser {
  userId: string;
  wsIds: string[];
}

/** The placeholder that replaces a removed user's id where another person's record keeps the fact (who decided). */
export const REMOVED_USER = 'removed-user';

/**
 * Removes a user and everything that is theirs: workstreams (with conversations, approvals, journal, routes, ledger
 * rows, watches, deliveries), their user- and workstream-scoped memories, tokens, platform links, MCP credentials and
 * grants and usage rows. Where another person's record names them (a decision on someone else's card, a grant they made for someone
 * else) the id is replaced by `removed-user`; global memories they wrote lose their author. Undefined when no such user.
 */
export function removeUserData(knex: Knex, userId: string): Promise<RemovedUser | undefined> {
  return guard('users.remove', () =>
    knex.transaction(async (trx) => {
      const user = (await trx('users').where({ user_id: userId }).first()) as DbRow | undefined;
      if (user === undefined) return undefined;
      const wsIds = ((await trx('workstreams').select('ws_id').where({ user_id: userId })) as DbRow[]).map((row) =>
        text(row.ws_id),
      );
      await deleteWorkstreams(trx, wsIds);
      await trx('structured_memories').where({ scope: 'user', scope_id: userId }).delete();
      await trx('structured_memories')
        .where({ author: text(user.username) })
        .update({ author: '' });
      await trx('approvals').where({ owner_user_id: userId }).delete();
      await trx('approvals').where({ decided_by: userId }).update({ decided_by: REMOVED_USER });
      await trx('approval_grants').where({ scope: 'user', scope_key: userId }).delete();
      await trx('approval_grants').where({ created_by: userId }).update({ created_by: REMOVED_USER });
      await trx('approval_grants').where({ revoked_by: userId }).update({ revoked_by: REMOVED_USER });
      await trx('channel_routes').where({ owner_user_id: userId }).delete();
      await trx('mcp_oauth_credentials').where({ user_id: userId }).delete();
      await trx('channel_users').where({ user_id: userId }).delete();
      await trx('api_tokens').where({ user_id: userId }).delete();
      await trx('usage_daily').where({ user_id: userId }).delete();
      await trx('users').where({ user_id: userId }).delete();
      return { userId, wsIds };
    }),
  );
}

/** How old (in days; 0 = kept forever) rows may grow before the retention purge removes them. */
export interface RetentionPolicy {
  conversationsDays: number;
  notifyDeliveriesDays: number;
  ledgerDays: number;
}

export interface PurgeResult {
  /** Workstreams removed (idle or closed, untouched for `conversationsDays`): their folders go next. */
  wsIds: string[];
  notifyDeliveries: number;
  ledgerRows: number;
  /** Usage rows (`usage_daily`) of days older than `conversationsDays`. */
  usageRows: number;
}

const DAY_MS = 86_400_000;
/** Workstreams per purge run, so one run stays a short transaction; the next run takes the rest. */
const PURGE_BATCH = 200;

function isoDaysAgo(now: number, days: number): string {
  return new Date(now - days * DAY_MS).toISOString().slice(0, 19);
}

/**
 * Deletes what the retention policy says is too old: conversations not updated for `conversationsDays` that run no
 * turn (idle, error or closed, no journal row, no lease), usage rows of older days, notify deliveries, and ledger rows (inbound_events, the dedup
 * ledger; kept at least a day so a redelivered event is still recognised).
 */
export function purgeExpired(knex: Knex, policy: RetentionPolicy, now: number): Promise<PurgeResult> {
  return guard('retention.purge', () =>
    knex.transaction(async (trx) => {
      let wsIds: string[] = [];
      if (policy.conversationsDays > 0) {
        const rows = (await trx('workstreams')
          .select('ws_id')
          .where('updated', '<', isoDaysAgo(now, policy.conversationsDays))
          .whereIn('state', ['idle', 'error', 'closed'])
          .whereNotExists(trx('turn_journal').select('ws_id').whereRaw('turn_journal.ws_id = workstreams.ws_id'))
          .whereNotExists(
            trx('workstream_leases')
              .select('workstream_id')
              .whereRaw('workstream_leases.workstream_id = workstreams.ws_id'),
          )
          .limit(PURGE_BATCH)) as DbRow[];
        wsIds = rows.map((row) => text(row.ws_id));
        await deleteWorkstreams(trx, wsIds);
      }
      const notifyDeliveries =
        policy.notifyDeliveriesDays > 0
          ? toNumber(
              await trx('notify_deliveries')
                .where('created', '<', isoDaysAgo(now, policy.notifyDeliveriesDays))
                .delete(),
            )
          : 0;
      const ledgerRows =
        policy.ledgerDays > 0
          ? toNumber(
              await trx('inbound_events')
                .where('received_at', '<', now - Math.max(1, policy.ledgerDays) * DAY_MS)
                .delete(),
            )
          : 0;
      // Usage is kept as long as conversations are (gateway.retention_days), by its day, whether or not its conversation is.
      const usageRows =
        policy.conversationsDays > 0
          ? toNumber(
              await trx('usage_daily')
                .where('day', '<', isoDaysAgo(now, policy.conversationsDays).slice(0, 10))
                .delete(),
            )
          : 0;
      return { wsIds, notifyDeliveries, ledgerRows, usageRows };
    }),
  );
}

/** The lifecycle operations as a store of the bundle (`stores.lifecycle`). */
export interface DataLifecycleStore {
  removeUser(userId: string): Promise<RemovedUser | undefined>;
  purgeExpired(policy: RetentionPolicy, now: number): Promise<PurgeResult>;
}

export class KnexDataLifecycle implements DataLifecycleStore {
  constructor(private readonly knex: Knex) {}

  removeUser(userId: string): Promise<RemovedUser | undefined> {
    return removeUserData(this.knex, userId);
  }

  purgeExpired(policy: RetentionPolicy, now: number): Promise<PurgeResult> {
    return purgeExpired(this.knex, policy, now);
  }
}
