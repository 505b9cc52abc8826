/** WorkstreamLeaseStore on knex: insert-or-ignore, then a conditional update; both atomic on SQLite and PostgreSQL. */
import type { Knex } from 'knex';
import { text, toNumber, type DbRow } from './rows.js';
import { guard } from './storage-errors.js';
import type { WorkstreamLease, WorkstreamLeaseStore } from './workstream-lease-store.js';

const TABLE = 'workstream_leases';

function toLease(row: DbRow): WorkstreamLease {
  return {
    wsId: text(row.workstream_id),
    holder: text(row.holder),
    expiresAt: toNumber(row.expires_at),
    acquiredAt: toNumber(row.acquired_at),
  };
}

export class KnexWorkstreamLeaseStore implements WorkstreamLeaseStore {
  constructor(private readonly knex: Knex) {}

  claim(
    wsId: string,
    holder: string,
    now: number,
    expiresAt: number,
  ): Promise<{ lease: WorkstreamLease; takenFrom?: string }> {
    return guard('workstreamLeases.claim', async () => {
      const fresh = { workstream_id: wsId, holder, expires_at: expiresAt, acquired_at: now };
      const inserted = (await this.knex(TABLE)
        .insert(fresh)
        .onConflict('workstream_id')
        .ignore()
        .returning('workstream_id')) as unknown[];
      if (inserted.length > 0) return { lease: toLease(fresh) };
      const before = await this.get(wsId);
      // Ours already: renewed. Expired: taken over, only if nobody renewed or took it since we read it.
      const updated = await this.knex(TABLE)
        .where({ workstream_id: wsId })
        .andWhere((q) => void q.where({ holder }).orWhere('expires_at', '<', now))
        .update({ holder, expires_at: expiresAt, ...(before?.holder === holder ? {} : { acquired_at: now }) });
      const lease = (await this.get(wsId)) ?? toLease(fresh);
      const takenFrom =
        toNumber(updated) > 0 && before !== undefined && before.holder !== holder ? before.holder : undefined;
      return takenFrom === undefined ? { lease } : { lease, takenFrom };
    });
  }

  renewAll(holder: string, expiresAt: number): Promise<string[]> {
    return guard('workstreamLeases.renewAll', async () => {
      const rows = (await this.knex(TABLE)
        .where({ holder })
        .update({ expires_at: expiresAt })
        .returning('workstream_id')) as DbRow[];
      return rows.map((row) => text(row.workstream_id));
    });
  }

  releaseAll(holder: string): Promise<number> {
    return guard('workstreamLeases.releaseAll', async () =>
      toNumber(await this.knex(TABLE).where({ holder }).delete()),
    );
  }

  release(holder: string, wsIds: readonly string[]): Promise<number> {
    if (wsIds.length === 0) return Promise.resolve(0);
    return guard('workstreamLeases.release', async () =>
      toNumber(
        await this.knex(TABLE)
          .where({ holder })
          .whereIn('workstream_id', [...wsIds])
          .delete(),
      ),
    );
  }

  releaseExpired(holder: string, now: number): Promise<number> {
    return guard('workstreamLeases.releaseExpired', async () =>
      toNumber(await this.knex(TABLE).where({ holder }).andWhere('expires_at', '<', now).delete()),
    );
  }

  expireNow(holder: string, wsIds: readonly string[]): Promise<number> {
    if (wsIds.length === 0) return Promise.resolve(0);
    return guard('workstreamLeases.expireNow', async () =>
      toNumber(
        await this.knex(TABLE)
          .where({ holder })
          .whereIn('workstream_id', [...wsIds])
          .update({ expires_at: 0 }),
      ),
    );
  }

  get(wsId: string): Promise<WorkstreamLease | undefined> {
    return guard('workstreamLeases.get', async () => {
      const row = (await this.knex(TABLE).where({ workstream_id: wsId }).first()) as DbRow | undefined;
      return row ? toLease(row) : undefined;
    });
  }

  listExpired(now: number, limit: number): Promise<WorkstreamLease[]> {
    return guard('workstreamLeases.listExpired', async () => {
      const rows = (await this.knex(TABLE).where('expires_at', '<', now).orderBy('expires_at').limit(limit)) as DbRow[];
      return rows.map(toLease);
    });
  }
}
