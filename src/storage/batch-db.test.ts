import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { BatchRunner } from './batch-db.js';
import { createKnex, type Knex } from './db.js';

describe('BatchRunner on SQLite (knex public API, prepared statements on the recorded connection)', () => {
  let dir: string;
  let knex: Knex;
  let runner: BatchRunner;
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'batch-db-'));
    knex = createKnex(`sqlite:${join(dir, 'batch.db')}`);
    await knex.raw('create table parents (id integer primary key)');
    // A deferred foreign key is checked at COMMIT: a violation makes the COMMIT itself fail and leaves it open.
    await knex.raw(
      'create table children (id integer primary key, parent integer references parents(id) deferrable initially deferred)',
    );
    runner = new BatchRunner(knex);
  });
  after(async () => {
    await knex.destroy();
    rmSync(dir, { recursive: true, force: true });
  });

  it("returns knex's own results and commits a batch", async () => {
    const ids = await runner.transaction(async (db) => {
      const inserted = await db.run<number[]>(db.table('parents').insert({ id: 1 }));
      const changed = await db.run<number>(db.table('parents').where({ id: 1 }).update({ id: 2 }));
      return { inserted, changed };
    });
    assert.deepEqual(ids, { inserted: [1], changed: 1 });
    assert.deepEqual(await knex('parents').select('id'), [{ id: 2 }]);
  });

  it('rolls a batch back when a statement fails', async () => {
    await assert.rejects(
      runner.transaction(async (db) => {
        await db.run(db.table('parents').insert({ id: 3 }));
        await db.run(db.table('parents').insert({ id: 3 }));
      }),
      /UNIQUE/,
    );
    assert.deepEqual(await knex('parents').select('id'), [{ id: 2 }]);
  });

  it('ends a transaction whose COMMIT failed: the next writes are neither refused nor rolled back with it', async () => {
    await assert.rejects(
      runner.transaction((db) => db.run(db.table('children').insert({ id: 1, parent: 99 }))),
      /FOREIGN KEY/,
    );
    // Queued behind the failed batch: without the ROLLBACK it would join the open transaction (and go with it).
    await runner.alone((db) => db.run(db.table('parents').insert({ id: 4 })));
    await runner.transaction((db) => db.run(db.table('parents').insert({ id: 5 })));
    assert.deepEqual(await knex('parents').select('id').orderBy('id'), [{ id: 2 }, { id: 4 }, { id: 5 }]);
    assert.deepEqual(await knex('children').select('id'), []);
  });
});
