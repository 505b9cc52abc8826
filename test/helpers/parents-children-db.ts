/**
 * A SQLite file with two tables for storage tests: `parents`, and `children` whose foreign key is checked at COMMIT
 * (deferred), so a violation makes the COMMIT itself fail and leaves the transaction open.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before } from 'node:test';
import { BatchRunner } from '../../src/storage/batch-db.js';
import { createKnex, type Knex } from '../../src/storage/db.js';

export interface ParentsChildrenDb {
  knex: Knex;
  runner: BatchRunner;
  close(): Promise<void>;
}

export async function parentsChildrenDb(): Promise<ParentsChildrenDb> {
  const dir = mkdtempSync(join(tmpdir(), 'parents-children-'));
  const knex = createKnex(`sqlite:${join(dir, 'test.db')}`);
  await knex.raw('create table parents (id integer primary key)');
  await knex.raw(
    'create table children (id integer primary key, parent integer references parents(id) deferrable initially deferred)',
  );
  return {
    knex,
    runner: new BatchRunner(knex),
    close: async () => {
      await knex.destroy();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** A fresh database for the enclosing `describe`: made before its tests, closed after them. */
export function parentsChildrenFixture(): { readonly knex: Knex; readonly runner: BatchRunner } {
  let current: ParentsChildrenDb | undefined;
  before(async () => {
    current = await parentsChildrenDb();
  });
  after(() => current?.close());
  const opened = (): ParentsChildrenDb => {
    if (current === undefined) throw new Error('the database is made before the tests run');
    return current;
  };
  return {
    get knex() {
      return opened().knex;
    },
    get runner() {
      return opened().runner;
    },
  };
}
