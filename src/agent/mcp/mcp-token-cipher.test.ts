/** Token encryption at rest: round trip, key rotation (old rows still read, rekey moves them), refusal of a wrong key. */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createTokenCipher } from './mcp-token-cipher.js';

const OLD = 'old-key-0123456789abcdef';
const NEW = 'new-key-fedcba9876543210';

describe('MCP token cipher', () => {
  it('seals so the plain text is not visible and opens it again', () => {
    const cipher = createTokenCipher(OLD);
    const sealed = cipher.encrypt('{"access_token":"at-secret"}');
    assert.equal(sealed.includes('at-secret'), false);
    assert.equal(cipher.decrypt(sealed), '{"access_token":"at-secret"}');
    assert.notEqual(cipher.encrypt('same'), cipher.encrypt('same'));
  });

  it('after a rotation reads rows of the previous key and tells which ones to rewrite', () => {
    const sealed = createTokenCipher(OLD).encrypt('token');
    const rotated = createTokenCipher(NEW, [OLD]);
    assert.equal(rotated.decrypt(sealed), 'token');
    assert.equal(rotated.isCurrent(sealed), false);
    assert.equal(rotated.isCurrent(rotated.encrypt('token')), true);
  });

  it('refuses a row of an unknown key, a tampered row, and a short or missing key, without echoing secrets', () => {
    const sealed = createTokenCipher(OLD).encrypt('token');
    assert.throws(() => createTokenCipher(NEW).decrypt(sealed), /not configured/);
    const parts = sealed.split(':');
    parts[4] = Buffer.from('tampered!').toString('base64url');
    assert.throws(() => createTokenCipher(OLD).decrypt(parts.join(':')));
    assert.throws(() => createTokenCipher('short'), /at least 16 characters/);
    assert.throws(() => createTokenCipher(undefined), /SANDPIPER_MCP_TOKEN_KEY/);
  });
});
