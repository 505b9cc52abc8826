/** GrantStore on knex: `approval_grants` (ADR 0046). Off the hot path: read once per approval step that still asks. */
import type { Knex } from 'knex';
import { newHexId } from '../shared/ids.js';
import { isoNow } from '../shared/time.js';
import type { ApprovalGrant, GrantInput, GrantPlace, GrantScope, GrantStore } from './grant-store.js';
import { nullableText, text, type DbRow } from './rows.js';
import { guard } from './storage-errors.js';

function toGrant(row: DbRow): ApprovalGrant {
  return {
    grantId: text(row.grant_id),
    scope: text(row.scope) as GrantScope,
    scopeKey: text(row.scope_key),
    label: text(row.label),
    argsGlob: nullableText(row.args_glob),
    createdBy: text(row.created_by),
    approvalId: nullableText(row.approval_id),
    created: text(row.created),
    expires: nullableText(row.expires),
    revoked: nullableText(row.revoked),
    revokedBy: nullableText(row.revoked_by),
  };
}

/** Not revoked and not expired at `now`. */
function inForce(query: Knex.QueryBuilder, now: string): Knex.QueryBuilder {
  return query.whereNull('revoked').andWhere((q) => q.whereNull('expires').orWhere('expires', '>', now));
}

export class KnexGrantStore implements GrantStore {
  constructor(private readonly knex: Knex) {}

  create(input: GrantInput): Promise<ApprovalGrant> {
    return guard('grants.create', async () => {
      const row = {
        grant_id: newHexId(8),
        scope: input.scope,
        scope_key: input.scopeKey,
        label: input.label,
        args_glob: input.argsGlob ?? null,
        created_by: input.createdBy,
        approval_id: input.approvalId ?? null,
        created: isoNow(),
        expires: input.expires ?? null,
        revoked: null,
        revoked_by: null,
      };
      await this.knex('approval_grants').insert(row);
      return toGrant(row);
    });
  }

  get(grantId: string): Promise<ApprovalGrant | undefined> {
    return guard('grants.get', async () => {
      const row = (await this.knex('approval_grants').where({ grant_id: grantId }).first()) as DbRow | undefined;
      return row === undefined ? undefined : toGrant(row);
    });
  }

  active(place: GrantPlace, now: string): Promise<ApprovalGrant[]> {
    return guard('grants.active', async () => {
      const query = this.knex('approval_grants').where((q) => {
        q.where({ scope: 'conversation', scope_key: place.wsId }).orWhere({ scope: 'user', scope_key: place.userId });
        if (place.channels.length > 0)
          q.orWhere((c) => c.where({ scope: 'channel' }).whereIn('scope_key', [...place.channels]));
      });
      const rows = (await inForce(query, now).orderBy('created')) as DbRow[];
      return rows.map(toGrant);
    });
  }

  list(filter: { userId?: string; all?: boolean; now: string }): Promise<ApprovalGrant[]> {
    return guard('grants.list', async () => {
      let query = this.knex('approval_grants');
      const userId = filter.userId;
      if (userId !== undefined) {
        const owned = this.knex('workstreams').select('ws_id').where({ user_id: userId });
        query = query.where((q) => {
          q.where({ scope: 'user', scope_key: userId })
            .orWhere({ created_by: userId })
            .orWhere((c) => c.where({ scope: 'conversation' }).whereIn('scope_key', owned));
        });
      }
      if (filter.all !== true) query = inForce(query, filter.now);
      const rows = (await query.orderBy('created', 'desc').orderBy('grant_id')) as DbRow[];
      return rows.map(toGrant);
    });
  }

  revoke(grantId: string, by: string): Promise<boolean> {
    return guard('grants.revoke', async () => {
      const changed = await this.knex('approval_grants')
        .where({ grant_id: grantId })
        .whereNull('revoked')
        .update({ revoked: isoNow(), revoked_by: by });
      return changed > 0;
    });
  }
}
