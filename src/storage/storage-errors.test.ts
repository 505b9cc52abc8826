/** toStorageError: driver failures become coded StorageErrors whose whole chain (cause, stacks, logs) carries no stored values. */
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import { createTestStores, type TestStores } from '../../test/helpers/test-stores.js';
import { StorageError } from '../shared/errors.js';
import { createLogger } from '../shared/logger.js';
import { toStorageError } from './storage-errors.js';

const USER_TEXT = 'my-private-thread-title-4711';

/** Every message and stack along the cause chain. */
function chainText(error: unknown): string {
  const parts: string[] = [];
  for (let current: unknown = error; current instanceof Error; current = current.cause) {
    parts.push(current.message, current.stack ?? '');
  }
  return parts.join('\n');
}

describe('toStorageError', () => {
  let db: TestStores;
  before(async () => {
    db = await createTestStores();
  });
  after(async () => {
    await db.close();
  });

  it('keeps user text that knex puts into driver messages out of the error chain and the logs', async () => {
    const user = await db.stores.users.createUser('erin');
    const row = { wsId: 'ws-dup', userId: user.userId, name: USER_TEXT, modelAlias: 'main' };
    await db.stores.workstreams.create(row);
    const failure = await db.stores.workstreams.create(row).then(
      () => assert.fail('a duplicate id must fail'),
      (error: unknown) => error,
    );
    assert.ok(failure instanceof StorageError);
    assert.equal(failure.code, 'CONFLICT');
    assert.doesNotMatch(chainText(failure), new RegExp(USER_TEXT));
    const lines: string[] = [];
    const destination = new Writable({
      write(chunk: Buffer, _encoding, done) {
        lines.push(chunk.toString('utf8'));
        done();
      },
    });
    createLogger({ format: 'json', destination }).error({ err: failure }, 'storing failed');
    assert.equal(lines.length, 1);
    assert.doesNotMatch(lines.join(''), new RegExp(USER_TEXT));
    assert.match(lines.join(''), /SQLITE_CONSTRAINT/, 'the driver code stays for operators');
  });

  it('keeps the driver code and the stack frames of the original failure', () => {
    const driver = Object.assign(new Error(`update "users" set "name" = '${USER_TEXT}' - deadlock detected`), {
      code: '40P01',
    });
    const mapped = toStorageError(driver, 'users.update');
    assert.equal(mapped.message, 'users.update failed (40P01)');
    const cause = mapped.cause as Error & { code?: string };
    assert.equal(cause.code, '40P01');
    assert.match(cause.stack ?? '', /storage-errors\.test\.ts/);
    assert.doesNotMatch(chainText(mapped), new RegExp(USER_TEXT));
  });
});
