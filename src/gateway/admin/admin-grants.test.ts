import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { GatewayError } from '../../shared/errors.js';
import { createTestStores, type TestStores } from '../../../test/helpers/test-stores.js';
import { addGrant, listGrants, parseExpiry, revokeGrant } from './admin-grants.js';

const NOW = Date.parse('2026-06-01T12:00:00Z');

describe('admin grants', () => {
  let db: TestStores;
  before(async () => {
    db = await createTestStores();
    await db.stores.users.createUser('bob');
  });
  after(() => db.close());

  it('reads expiries as durations or future ISO times and refuses anything else', () => {
    assert.equal(parseExpiry('30m', NOW), '2026-06-01T12:30:00');
    assert.equal(parseExpiry('7d', NOW), '2026-06-08T12:00:00');
    assert.equal(parseExpiry('2026-06-02T00:00:00', NOW), '2026-06-02T00:00:00');
    assert.throws(() => parseExpiry('soon', NOW), /duration/);
    assert.throws(() => parseExpiry('2020-01-01T00:00:00', NOW), /in the future/);
  });

  it('refuses bad input with a clear error and stores nothing', async () => {
    const bad = (input: unknown, pattern: RegExp) =>
      assert.rejects(
        addGrant(db.stores, input, 'cli', NOW),
        (e: unknown) => e instanceof GatewayError && pattern.test(e.message),
      );
    await bad({ scope: 'team', target: 'bob', tool: 'bash' }, /scope must be/);
    await bad({ scope: 'user', target: 'nobody', tool: 'bash' }, /no user named nobody/);
    await bad({ scope: 'conversation', target: 'ws-missing', tool: 'bash' }, /no conversation/);
    await bad({ scope: 'channel', target: 'C123', tool: 'bash' }, /<platform>:<channel id>/);
    await bad({ scope: 'user', target: 'bob', tool: 'bash\u0007' }, /control characters/);
    await bad({ scope: 'user', target: 'bob', tool: 'bash', colour: 'red' }, /colour|Unrecognized/);
    assert.deepEqual(await listGrants(db.stores, { all: true }, NOW), []);
  });

  it('lists a grant until it expires or is revoked, then only with all', async () => {
    const grant = await addGrant(
      db.stores,
      { scope: 'channel', target: 'slack:C123', tool: 'web_*', expires: '1h' },
      'cli',
      NOW,
    );
    assert.deepEqual(
      (await listGrants(db.stores, {}, NOW)).map((g) => g.grant_id),
      [grant.grant_id],
    );
    assert.deepEqual(await listGrants(db.stores, {}, NOW + 2 * 3_600_000), []);
    assert.equal((await listGrants(db.stores, { all: true }, NOW + 2 * 3_600_000))[0]?.status, 'expired');
    await revokeGrant(db.stores, grant.grant_id, 'cli', NOW);
    await assert.rejects(revokeGrant(db.stores, grant.grant_id, 'cli', NOW), /already revoked/);
    await assert.rejects(revokeGrant(db.stores, 'nope', 'cli', NOW), /no grant nope/);
  });
});
