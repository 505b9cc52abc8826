import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { decodeJwt, decodeProtectedHeader } from 'jose';
import {
  createServiceTokenSource,
  expandAdminScopes,
  mintAdminToken,
  mintServiceToken,
  verifyAdminBearer,
  verifyBearer,
} from './auth.js';
import type { HttpError } from './http-errors.js';

const SETTINGS = { secret: 'token-source-secret-token-source-secret', audience: 'turnstone-channel' };

describe('createServiceTokenSource', () => {
  it('mints nothing without a secret', async () => {
    assert.equal(await createServiceTokenSource({ secret: '', audience: 'x' })(), undefined);
  });

  it('mints a verifiable write token with an expiry and reuses it until 80 % of its lifetime has passed', async () => {
    let now = Date.now();
    const source = createServiceTokenSource(SETTINGS, { ttlSeconds: 300, now: () => now });
    const first = await source();
    assert.ok(first);
    const principal = await verifyBearer(`Bearer ${first}`, SETTINGS, 'write');
    assert.equal(principal.subject, 'system');
    const claims = decodeJwt(first);
    assert.equal(claims.aud, 'turnstone-channel');
    assert.ok(typeof claims.exp === 'number' && typeof claims.iat === 'number' && claims.exp - claims.iat === 300);
    now += 239_000;
    assert.equal(await source(), first);
    now += 2_000;
    // Past 80 %: minted again (the text may equal the old one when both fall in the same second).
    const renewed = await source();
    assert.ok(renewed);
    await verifyBearer(`Bearer ${renewed}`, SETTINGS, 'write');
  });
});

describe('admin tokens (ADR 0035)', () => {
  const ADMIN = 'admin-unit-secret-admin-unit-secret-admin';

  it('grants admin:read with admin:write, and nothing for notify scopes', () => {
    assert.deepEqual([...expandAdminScopes('admin:write')].sort(), ['admin:read', 'admin:write']);
    assert.deepEqual([...expandAdminScopes(['admin:read'])], ['admin:read']);
    assert.deepEqual([...expandAdminScopes('service,write,approve')], []);
    assert.deepEqual([...expandAdminScopes(undefined)], []);
  });

  it('verifies its own tokens and refuses expired ones, other secrets and the notify shape', async () => {
    const token = await mintAdminToken(ADMIN, { subject: 'cli:ops', scopes: ['admin:read'] });
    const principal = await verifyAdminBearer(`Bearer ${token}`, ADMIN, 'admin:read');
    assert.equal(principal.subject, 'cli:ops');
    assert.deepEqual(decodeProtectedHeader(token).typ, 'admin+jwt');
    await assert.rejects(
      verifyAdminBearer(`Bearer ${token}`, ADMIN, 'admin:write'),
      (error: HttpError) => error.status === 403,
    );
    const expired = await mintAdminToken(ADMIN, { subject: 'cli:ops', scopes: ['admin:write'], ttlSeconds: -120 });
    await assert.rejects(
      verifyAdminBearer(`Bearer ${expired}`, ADMIN, 'admin:read'),
      (error: HttpError) => error.status === 401,
    );
    const other = await mintAdminToken('another-admin-secret-another-admin-secret', {
      subject: 'x',
      scopes: ['admin:write'],
    });
    await assert.rejects(
      verifyAdminBearer(`Bearer ${other}`, ADMIN, 'admin:read'),
      (error: HttpError) => error.status === 401,
    );
    const notifyShaped = await mintServiceToken(
      { secret: ADMIN, audience: 'sandpiper-admin' },
      { scopes: ['admin:write'] },
    );
    await assert.rejects(
      verifyAdminBearer(`Bearer ${notifyShaped}`, ADMIN, 'admin:read'),
      (error: HttpError) => error.status === 401,
      'typ must be admin+jwt',
    );
    await assert.rejects(
      verifyBearer(`Bearer ${token}`, { secret: ADMIN, audience: 'turnstone-channel' }, 'write'),
      (error: HttpError) => error.status === 401,
      'no notify with an admin token',
    );
  });
});
