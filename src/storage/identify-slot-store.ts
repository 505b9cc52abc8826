/**
 * Discord identify slots shared by the instances on one database (ADR 0052): at most one identify per bucket per
 * window, on the database's clock so instances whose clocks differ still agree.
 */
import type { Knex } from 'knex';
import { isPostgres } from './db.js';
import { guard } from './storage-errors.js';

export interface IdentifySlotStore {
  /** Takes the bucket's slot when it is free (its window passed): 0, and the next one is `windowMs` away; else the ms to wait. */
  take(bucket: string, windowMs: number): Promise<number>;
}

const TABLE = 'identify_slots';

export class KnexIdentifySlotStore implements IdentifySlotStore {
  constructor(private readonly knex: Knex) {}

  take(bucket: string, windowMs: number): Promise<number> {
    return guard('identifySlots.take', async () => {
      const now = this.knex.raw(
        isPostgres(this.knex)
          ? '(extract(epoch from clock_timestamp()) * 1000)::bigint'
          : "cast((julianday('now') - 2440587.5) * 86400000 as integer)",
      );
      await this.knex(TABLE).insert({ bucket, next_at: 0 }).onConflict('bucket').ignore();
      // One statement: the row lock lets only one instance move the window on.
      const taken = await this.knex(TABLE)
        .where('bucket', bucket)
        .andWhere('next_at', '<=', now)
        .update({ next_at: this.knex.raw('? + ?', [now, windowMs]) });
      if (taken > 0) return 0;
      const row = (await this.knex(TABLE)
        .where('bucket', bucket)
        .first(this.knex.raw('next_at - ? as wait', [now]))) as { wait?: number | string } | undefined;
      return Math.max(1, Number(row?.wait ?? 1));
    });
  }
}
