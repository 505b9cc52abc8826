/** createKnex: URL schemes, SQLite connection pragmas, secret-free errors. */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GatewayError } from '../shared/errors.js';
import { createKnex, runMigrations } from './db.js';
import { createStores } from './create-stores.js';

describe('createKnex', () => {
  it('creates the parent directory and sets WAL (synchronous=NORMAL), foreign keys and a busy timeout on SQLite', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sandpiper-db-'));
    const knex = createKnex(`sqlite:${join(dir, 'deep', 'er', 'sandpiper.db')}`);
    try {
      assert.ok(existsSync(join(dir, 'deep', 'er')));
      const [journal] = (await knex.raw('PRAGMA journal_mode')) as Array<{ journal_mode: string }>;
      const [foreignKeys] = (await knex.raw('PRAGMA foreign_keys')) as Array<{ foreign_keys: number }>;
      const [busy] = (await knex.raw('PRAGMA busy_timeout')) as Array<{ timeout: number }>;
      const [sync] = (await knex.raw('PRAGMA synchronous')) as Array<{ synchronous: number }>;
      assert.equal(journal?.journal_mode, 'wal');
      assert.equal(sync?.synchronous, 1, 'NORMAL');
      assert.equal(foreignKeys?.foreign_keys, 1);
      assert.equal(busy?.timeout, 5000);
    } finally {
      await knex.destroy();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('names the directory when the SQLite file cannot be created', () => {
    const dir = mkdtempSync(join(tmpdir(), 'sandpiper-db-'));
    try {
      writeFileSync(join(dir, 'a-file'), '');
      assert.throws(
        () => createKnex(`sqlite:${join(dir, 'a-file', 'data', 'sandpiper.db')}`),
        (error: unknown) =>
          error instanceof GatewayError &&
          error.code === 'STORAGE_ERROR' &&
          error.message.includes(join(dir, 'a-file', 'data')) &&
          error.message.includes('ENOTDIR'),
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('runs migrations and stores on an in-memory SQLite database', async () => {
    const knex = createKnex('sqlite::memory:');
    try {
      await runMigrations(knex);
      const stores = createStores(knex);
      await stores.conversations.append('ws', { role: 'user', content: 'in memory' });
      assert.equal(await stores.conversations.count('ws'), 1);
    } finally {
      await knex.destroy();
    }
  });

  it('rejects an unsupported URL without echoing it', () => {
    assert.throws(
      () => createKnex('mysql://root:hunter2@localhost/db'),
      (error: unknown) =>
        error instanceof GatewayError && error.code === 'CONFIG_INVALID' && !error.message.includes('hunter2'),
    );
  });

  it('reports an unreachable PostgreSQL server as a StorageError without the password', async () => {
    // Port 1 on loopback: nothing listens, the connection is refused at once.
    const knex = createKnex('postgres://sandpiper:hunter2@127.0.0.1:1/sandpiper');
    try {
      await assert.rejects(runMigrations(knex), (error: unknown) => {
        assert.ok(error instanceof GatewayError);
        assert.equal(error.code, 'STORAGE_ERROR');
        assert.equal(error.message, 'cannot connect to the database (ECONNREFUSED)');
        assert.equal(error.retryable, true);
        assert.ok(!error.message.includes('hunter2'));
        assert.ok(!JSON.stringify(error.data ?? {}).includes('hunter2'));
        return true;
      });
    } finally {
      await knex.destroy();
    }
  });
});
