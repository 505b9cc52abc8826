/** HandoffStore on knex; on PostgreSQL each new row also sends `pg_notify('sandpiper_cluster', '<target> <id>')`. */
import type { InboundClaim } from './inbound-event-store.js';
import { settleReceipt } from './knex-inbound-event-store.js';
import type { Knex } from 'knex';
import { isPostgres } from './db.js';
import { HANDOFF_CHANNEL, type Handoff, type HandoffKind, type HandoffStore } from './handoff-store.js';
import { listenForHandoffs } from './knex-handoff-listener.js';
import { nullableText, text, toNullableNumber, toNumber, type DbRow } from './rows.js';
import { guard } from './storage-errors.js';

const TABLE = 'cluster_handoffs';

function toHandoff(row: DbRow): Handoff {
  return {
    id: text(row.id),
    target: text(row.target),
    wsId: text(row.workstream_id),
    kind: text(row.kind) as HandoffKind,
    payload: text(row.payload),
    createdAt: toNumber(row.created_at),
    claimedAt: toNullableNumber(row.claimed_at),
    claimedBy: nullableText(row.claimed_by),
  };
}

export class KnexHandoffStore implements HandoffStore {
  constructor(private readonly knex: Knex) {}

  create(input: {
    target: string;
    wsId: string;
    kind: HandoffKind;
    payload: string;
    createdAt: number;
    receipt?: InboundClaim;
  }): Promise<Handoff> {
    return guard('handoffs.create', () =>
      this.knex.transaction(async (trx) => {
        if (input.receipt !== undefined)
          await settleReceipt(async (query) => (await query) as unknown, trx('inbound_events'), input.receipt);
        const row = {
          target: input.target,
          workstream_id: input.wsId,
          kind: input.kind,
          payload: input.payload,
          created_at: input.createdAt,
        };
        const [inserted] = (await trx(TABLE).insert(row).returning('id')) as Array<DbRow | number>;
        const id = typeof inserted === 'object' ? text(inserted.id) : text(inserted);
        if (isPostgres(this.knex)) await trx.raw('select pg_notify(?, ?)', [HANDOFF_CHANNEL, `${input.target} ${id}`]);
        return toHandoff({ ...row, id, claimed_at: null, claimed_by: null });
      }),
    );
  }

  claim(id: string, by: string, now: number): Promise<boolean> {
    return guard(
      'handoffs.claim',
      async () =>
        toNumber(
          await this.knex(TABLE).where({ id }).whereNull('claimed_at').update({ claimed_at: now, claimed_by: by }),
        ) === 1,
    );
  }

  get(id: string): Promise<Handoff | undefined> {
    return guard('handoffs.get', async () => {
      const row = (await this.knex(TABLE).where({ id }).first()) as DbRow | undefined;
      return row ? toHandoff(row) : undefined;
    });
  }

  listUnclaimed(target: string, limit: number): Promise<Handoff[]> {
    return guard('handoffs.listUnclaimed', async () => {
      const rows = (await this.knex(TABLE)
        .where({ target })
        .whereNull('claimed_at')
        .orderBy('id')
        .limit(limit)) as DbRow[];
      return rows.map(toHandoff);
    });
  }

  listUnclaimedFor(wsId: string): Promise<Handoff[]> {
    return guard('handoffs.listUnclaimedFor', async () => {
      const rows = (await this.knex(TABLE)
        .where({ workstream_id: wsId })
        .whereNull('claimed_at')
        .orderBy('id')) as DbRow[];
      return rows.map(toHandoff);
    });
  }

  prune(beforeMs: number): Promise<number> {
    return guard('handoffs.prune', async () =>
      toNumber(await this.knex(TABLE).whereNotNull('claimed_at').andWhere('claimed_at', '<', beforeMs).delete()),
    );
  }

  listen(
    onWake: (target: string, id: string) => void,
    onError: (error: unknown) => void,
  ): Promise<() => Promise<void>> {
    if (!isPostgres(this.knex)) return Promise.resolve(async () => undefined);
    return listenForHandoffs(this.knex, onWake, onError);
  }
}
