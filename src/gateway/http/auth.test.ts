import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { decodeJwt } from 'jose';
import { createServiceTokenSource, verifyBearer } from './auth.js';

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
