import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import sqlite3 from 'sqlite3';
import { parentsChildrenFixture } from '../../test/helpers/parents-children-db.js';

describe('BatchRunner on SQLite (a write group as one script on the write connection, BEGIN and COMMIT included)', () => {
  const fx = parentsChildrenFixture();

  it("commits a batch's writes, and a statement whose rows are read sees the writes before it", async () => {
    const read = await fx.runner.transaction(async (db) => {
      const queued = await db.run(db.table('parents').insert({ id: 1 }));
      await db.run(db.table('parents').where({ id: 1 }).update({ id: 2 }));
      const rows = await db.run<Array<{ id: number }>>(db.table('parents').select('id'));
      const returned = await db.run(db.table('parents').insert({ id: 7 }).returning('id'));
      await db.run(db.table('parents').where({ id: 7 }).del());
      return { queued, rows, returned };
    });
    assert.deepEqual(read, { queued: undefined, rows: [{ id: 2 }], returned: [{ id: 7 }] });
    assert.deepEqual(await fx.knex('parents').select('id'), [{ id: 2 }]);
  });

  it('sends the plain writes of a batch to the driver as one script with its BEGIN and COMMIT', async () => {
    // Calls into the driver (node-sqlite3), counted on its prototype for the length of one batch.
    const calls: string[] = [];
    const proto = sqlite3.Database.prototype as unknown as Record<string, (...args: unknown[]) => unknown>;
    const originals = new Map(['exec', 'run', 'all'].map((name) => [name, proto[name]!]));
    for (const [name, original] of originals)
      proto[name] = function (this: unknown, ...args: unknown[]) {
        calls.push(`${name} ${String(args[0]).split(/\s/)[0]?.toLowerCase()}`);
        return original.apply(this, args);
      };
    try {
      await fx.runner.transaction(async (db) => {
        await db.run(db.table('parents').insert({ id: 10 }));
        await db.run(db.raw('insert into parents (id) values (?), (?) -- two rows', [11, 12]));
        await db.run(db.table('parents').where({ id: 12 }).update({ id: 13 }));
      });
    } finally {
      for (const [name, original] of originals) proto[name] = original;
    }
    assert.deepEqual(calls, ['exec begin']);
    assert.deepEqual(await fx.knex('parents').whereIn('id', [10, 11, 13]).pluck('id'), [10, 11, 13]);
    await fx.knex('parents').whereIn('id', [10, 11, 13]).del();
  });

  it('rolls a batch back when a statement fails', async () => {
    await assert.rejects(
      fx.runner.transaction(async (db) => {
        await db.run(db.table('parents').insert({ id: 3 }));
        await db.run(db.table('parents').insert({ id: 3 }));
      }),
      /UNIQUE/,
    );
    assert.deepEqual(await fx.knex('parents').select('id'), [{ id: 2 }]);
  });

  it('runs a statement asked for during a transaction after it: a transaction that fails does not take it along', async () => {
    let outside: Promise<unknown> | undefined;
    await assert.rejects(
      fx.runner.transaction(async (db) => {
        await db.run(db.table('parents').insert({ id: 20 }));
        // A read sends the writes so far: the transaction is open across several calls into the driver from here.
        await db.run(db.table('parents').select('id'));
        outside = fx.runner.alone((other) => other.run(other.table('parents').insert({ id: 21 })));
        await db.run(db.table('parents').select('id'));
        await db.run(db.table('parents').insert({ id: 20 }));
      }),
      /UNIQUE/,
    );
    await outside;
    assert.deepEqual(await fx.knex('parents').whereIn('id', [20, 21]).pluck('id'), [21]);
    await fx.knex('parents').where({ id: 21 }).del();
  });

  it('opens a new connection when a ROLLBACK fails for another reason: no later write joins the transaction left open', async () => {
    const proto = sqlite3.Database.prototype as unknown as Record<string, (...args: unknown[]) => unknown>;
    const exec = proto['exec']!;
    let failRollback = true;
    // The ROLLBACK after the failed group fails once, as an I/O error would, and leaves the transaction open.
    proto['exec'] = function (this: unknown, ...args: unknown[]) {
      const callback = args[1] as (error: Error | null) => void;
      if (failRollback && String(args[0]).startsWith('ROLLBACK')) {
        failRollback = false;
        callback(new Error('SQLITE_IOERR: disk I/O error (injected)'));
        return this;
      }
      return exec.apply(this, args);
    };
    try {
      await assert.rejects(
        fx.runner.transaction(async (db) => {
          await db.run(db.table('parents').insert({ id: 30 }));
          await db.run(db.table('parents').insert({ id: 30 }));
        }),
        /UNIQUE/,
      );
    } finally {
      proto['exec'] = exec;
    }
    await fx.runner.alone((db) => db.run(db.table('parents').insert({ id: 31 })));
    assert.deepEqual(await fx.knex('parents').whereIn('id', [30, 31]).pluck('id'), [31]);
    await fx.knex('parents').where({ id: 31 }).del();
  });

  it('ends a transaction whose COMMIT failed: the next writes are neither refused nor rolled back with it', async () => {
    await assert.rejects(
      fx.runner.transaction((db) => db.run(db.table('children').insert({ id: 1, parent: 99 }))),
      /FOREIGN KEY/,
    );
    // Queued behind the failed batch: without the ROLLBACK it would join the open transaction (and go with it).
    await fx.runner.alone((db) => db.run(db.table('parents').insert({ id: 4 })));
    await fx.runner.transaction((db) => db.run(db.table('parents').insert({ id: 5 })));
    assert.deepEqual(await fx.knex('parents').select('id').orderBy('id'), [{ id: 2 }, { id: 4 }, { id: 5 }]);
    assert.deepEqual(await fx.knex('children').select('id'), []);
  });
});
