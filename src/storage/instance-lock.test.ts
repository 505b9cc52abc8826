/** The SQLite instance lock in one process (the cross-process cases run the real bin: test/integration/instance-lock.test.ts). */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import {
  acquireInstanceLock,
  describeLockRefusal,
  instanceLockFile,
  lockSqliteInstance,
  sqliteDatabaseFile,
} from './instance-lock.js';

const dir = mkdtempSync(path.join(tmpdir(), 'sp-instance-lock-'));
after(() => rmSync(dir, { recursive: true, force: true }));

describe('instance lock', () => {
  it('is held until released, and names its holder to whoever is refused', async () => {
    const db = path.join(dir, 'a.db');
    const first = await acquireInstanceLock(db, 'channel-h-0001');
    assert.ok(first.ok);
    const second = await acquireInstanceLock(db, 'channel-h-0002');
    assert.ok(!second.ok);
    assert.equal(second.error.kind, 'held');
    assert.deepEqual(
      second.error.kind === 'held' && [
        second.error.holder?.instanceId,
        second.error.holder?.pid,
        second.error.holder?.host,
      ],
      ['channel-h-0001', process.pid, hostname()],
    );
    assert.match(
      describeLockRefusal(db, second.error),
      new RegExp(`^another sandpiper is already running on the SQLite database ${db} \\(pid ${process.pid} on `),
    );
    await first.value.release();
    await first.value.release();
    const third = await acquireInstanceLock(db, 'channel-h-0003');
    assert.ok(third.ok);
    await third.value.release();
  });

  it('lockSqliteInstance throws ALREADY_RUNNING for a held file and takes no lock on PostgreSQL or in memory', async () => {
    const url = `sqlite:${path.join(dir, 'nested', 'b.db')}`;
    const lock = await lockSqliteInstance(url, 'channel-h-0004');
    assert.equal(lock?.file, instanceLockFile(path.join(dir, 'nested', 'b.db')));
    await assert.rejects(lockSqliteInstance(url, 'channel-h-0005'), { code: 'ALREADY_RUNNING' });
    await lock?.release();
    assert.equal(await lockSqliteInstance('postgres://u@h/db', 'x'), undefined);
    assert.equal(await lockSqliteInstance('sqlite::memory:', 'x'), undefined);
  });

  it('reads the database file from sqlite URLs', () => {
    assert.equal(sqliteDatabaseFile('sqlite:///var/lib/sp.db'), '/var/lib/sp.db');
    assert.equal(sqliteDatabaseFile('sqlite:/var/lib/sp.db'), '/var/lib/sp.db');
    assert.equal(sqliteDatabaseFile('sqlite:rel.db'), path.resolve('rel.db'));
    assert.equal(sqliteDatabaseFile('postgresql://h/db'), undefined);
  });
});
