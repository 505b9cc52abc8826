/** Secret-looking values are masked on approval cards; ordinary commands stay readable. */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { MASK, maskSecrets } from './secret-masking.js';

describe('maskSecrets', () => {
  it('masks values after secret-bearing names, in shell, JSON and header forms', () => {
    assert.equal(maskSecrets('export API_KEY=abcd1234efgh && run'), `export API_KEY=${MASK} && run`);
    assert.equal(
      maskSecrets('{"password": "hunter2hunter2", "user": "bob"}'),
      `{"password": "${MASK}", "user": "bob"}`,
    );
    assert.equal(
      maskSecrets('curl -H "Authorization: Bearer abc.def.ghijklmnop" https://x'),
      `curl -H "Authorization: Bearer ${MASK}" https://x`,
    );
    assert.equal(maskSecrets('deploy --token s3cr3tvalue --env prod'), `deploy --token ${MASK} --env prod`);
    assert.equal(maskSecrets('DISCORD_BOT_TOKEN="MTA0.xyz.abc-secret"'), `DISCORD_BOT_TOKEN="${MASK}"`);
  });

  it('masks well-known credential shapes without a name', () => {
    const cases = [
      'sk-proj-AbCdEfGhIjKlMnOpQrStUvWx',
      'ghp_0123456789abcdefghijABCDEFGHIJ',
      'xoxb-123456789012-abcdefghijkl',
      'AKIAIOSFODNN7EXAMPLE',
      'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJhbGljZSJ9.c2lnbmF0dXJlLXNpZ25hdHVyZQ',
      '-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAA\n-----END OPENSSH PRIVATE KEY-----',
    ];
    for (const secret of cases) assert.equal(maskSecrets(`echo ${secret} > f`), `echo ${MASK} > f`, secret);
    assert.equal(maskSecrets('psql postgres://app:pa55word@db:5432/x'), `psql postgres://app:${MASK}@db:5432/x`);
  });

  it('leaves ordinary commands alone', () => {
    for (const plain of [
      'ls -la src',
      'git commit -m "fix the token parser"',
      'npm test -- --grep auth',
      'cat README.md | head -5',
    ]) {
      assert.equal(maskSecrets(plain), plain);
    }
  });
});
