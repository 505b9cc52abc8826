import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { BatchRunner } from './batch-db.js';
import { createKnex, type Knex } from './db.js';
import { sqliteLiteral, withLiterals } from './sqlite-script.js';

describe('withLiterals: a statement with its values written into its text', () => {
  it('replaces placeholders outside quoted strings, quoted identifiers and comments', () => {
    const sql = "select ? as \"a?\", 'b?''?' , `c?`, [d?] /* e? */ from t where x = ? -- f?\n and y = ?";
    assert.equal(
      withLiterals(sql, [1, "it's", null]),
      "select 1 as \"a?\", 'b?''?' , `c?`, [d?] /* e? */ from t where x = 'it''s' -- f?\n and y = NULL",
    );
  });

  it('refuses a count of values that does not match the placeholders', () => {
    assert.throws(() => withLiterals('select ?, ?', [1]), /more placeholders/);
    assert.throws(() => withLiterals('select ?', [1, 2]), /fewer placeholders/);
  });

  it('refuses a value with no exact literal, so the group falls back to bound values', () => {
    assert.throws(() => sqliteLiteral(Number.NaN), /non-finite/);
    assert.throws(() => sqliteLiteral({ a: 1 }), /no SQLite literal/);
    assert.throws(() => sqliteLiteral(10n), /no SQLite literal/);
  });
});

describe('a value written as a literal stores what the driver stores when it binds it', () => {
  let dir: string;
  let knex: Knex;
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'sqlite-script-'));
    knex = createKnex(`sqlite:${join(dir, 'script.db')}`);
    // Columns without affinity keep the storage class each value arrives with; the text column converts.
    await knex.raw('create table v (id integer primary key, way text, x, t text)');
  });
  after(async () => {
    await knex.destroy();
    rmSync(dir, { recursive: true, force: true });
  });

  const values: Array<[string, unknown]> = [
    ['null', null],
    ['zero', 0],
    ['negative int32', -2_147_483_648],
    ['int32 max', 2_147_483_647],
    ['past int32', 2_147_483_648],
    ['milliseconds', 1_765_000_000_123],
    ['fraction', 0.1],
    ['small', 1.5e-7],
    ['large', 1e21],
    ['negative zero', -0],
    ['true', true],
    ['false', false],
    ['date', new Date(1_765_000_000_123)],
    ['buffer', Buffer.from([0, 1, 2, 255])],
    ['text', "it's -- a /* test */ ? 'quoted' \"too\""],
    ['unicode', 'naïve 🐦 \u2028 line'],
    ['nul', 'a\u0000b'],
    ['empty', ''],
  ];

  it('for every kind of value the stores write', async () => {
    const runner = new BatchRunner(knex);
    for (const [name, value] of values) {
      await knex('v').insert({ way: `bound ${name}`, x: value, t: value });
      await runner.transaction(async (db) => {
        await db.run(db.table('v').insert({ way: `script ${name}`, x: value, t: value }));
      });
    }
    const rows = await knex.raw<Array<{ way: string; kind: string; x: unknown; t: unknown }>>(
      'select way, typeof(x) as kind, x, t from v order by id',
    );
    for (const [name] of values) {
      const bound = rows.find((row) => row.way === `bound ${name}`);
      const script = rows.find((row) => row.way === `script ${name}`);
      assert.ok(bound && script, name);
      assert.deepEqual(
        { kind: script.kind, x: script.x, t: script.t },
        { kind: bound.kind, x: bound.x, t: bound.t },
        name,
      );
    }
  });
});
