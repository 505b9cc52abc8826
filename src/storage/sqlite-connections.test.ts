/**
 * A SQLite database's two connections (sqlite-connections.ts): knex's pool and the write engine's own connection. Both
 * are set up alike, each sees the other's commits, their writes wait for each other instead of failing, a knex
 * transaction whose COMMIT failed is ended, a write connection that cannot open fails its write and is opened again
 * by the next, and `sqlite::memory:` stays in memory on knex's one connection.
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { BatchRunner } from './batch-db.js';
import { createKnex } from './db.js';
import { parentsChildrenFixture } from '../../test/helpers/parents-children-db.js';

describe('SQLite: knex pool and the write connection', () => {
  const fx = parentsChildrenFixture();

  it('sets WAL (synchronous=NORMAL), foreign keys and a busy timeout on the write connection too', async () => {
    const pragma = async (name: string): Promise<unknown> =>
      Object.values(
        (await fx.runner.alone((db) => db.run<Array<Record<string, unknown>>>(db.raw(`PRAGMA ${name}`))))[0] ?? {},
      )[0];
    assert.equal(await pragma('journal_mode'), 'wal');
    assert.equal(await pragma('synchronous'), 1, 'NORMAL');
    assert.equal(await pragma('foreign_keys'), 1);
    assert.equal(await pragma('busy_timeout'), 5000);
  });

  it("shows a group to knex's connection once committed, and waits for a write lock knex's connection holds", async () => {
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let locked!: () => void;
    const lockTaken = new Promise<void>((resolve) => (locked = resolve));
    const holder = fx.knex.transaction(async (trx) => {
      await trx('parents').insert({ id: 1 });
      locked();
      await held;
    });
    await lockTaken;
    // Sent while knex's transaction holds the write lock: SQLite makes it wait (busy_timeout) instead of failing.
    const group = fx.runner.transaction(async (db) => {
      await db.run(db.table('parents').insert({ id: 2 }));
      await db.run(db.table('parents').insert({ id: 3 }));
    });
    const groupOutcome = group.then(
      () => 'committed',
      (error: unknown) => `failed: ${String(error)}`,
    );
    release();
    await holder;
    assert.equal(await groupOutcome, 'committed');
    assert.deepEqual(await fx.knex('parents').orderBy('id').pluck('id'), [1, 2, 3]);
    await fx.knex('parents').del();
  });

  it('ends a knex transaction whose COMMIT failed: the next writes on its connection are not rolled back with it', async () => {
    await assert.rejects(
      fx.knex.transaction((trx) => trx('children').insert({ id: 1, parent: 99 })),
      /FOREIGN KEY/,
    );
    await fx.knex('parents').insert({ id: 4 });
    await fx.knex.transaction((trx) => trx('parents').insert({ id: 5 }));
    assert.deepEqual(await fx.knex('parents').orderBy('id').pluck('id'), [4, 5]);
    assert.deepEqual(await fx.knex('children').pluck('id'), []);
  });
});

describe('SQLite: the write connection cannot open', () => {
  it('fails the write with the driver error, and opens at the next write once it can', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sqlite-open-'));
    // The database path is a directory for now: SQLite cannot open it.
    const file = join(dir, 'db.sqlite');
    mkdirSync(file);
    const knex = createKnex(`sqlite:${file}`);
    const runner = new BatchRunner(knex);
    try {
      await assert.rejects(
        runner.transaction((db) => db.run(db.raw('create table notes (text text)'))),
        /SQLITE_CANTOPEN/,
      );
      rmdirSync(file);
      await runner.transaction((db) => db.run(db.raw('create table notes (text text)')));
      await runner.alone((db) => db.run(db.table('notes').insert({ text: 'stored' })));
      assert.deepEqual(await knex('notes').pluck('text'), ['stored']);
    } finally {
      await knex.destroy();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('SQLite: sqlite::memory:', () => {
  it("stays in memory: no file, and write groups commit on knex's one connection", async () => {
    const knex = createKnex('sqlite::memory:');
    try {
      assert.equal((knex.client.config.connection as { filename: string }).filename, ':memory:');
      await knex.raw('create table notes (text text)');
      const runner = new BatchRunner(knex);
      await runner.transaction(async (db) => {
        await db.run(db.table('notes').insert({ text: 'first' }));
        await db.run(db.table('notes').insert({ text: 'second' }));
      });
      await runner.alone((db) => db.run(db.table('notes').insert({ text: 'alone' })));
      assert.deepEqual(await knex('notes').pluck('text'), ['first', 'second', 'alone']);
    } finally {
      await knex.destroy();
    }
  });
});
