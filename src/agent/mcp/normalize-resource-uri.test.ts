/** URI normalization vectors for resource approval labels. */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { normalizeResourceUri } from './normalize-resource-uri.js';

describe('normalizeResourceUri', () => {
  const vectors: [string, string][] = [
    ['file:///docs/readme.md', 'file:///docs/readme.md'],
    ['file:///docs/../etc/passwd', 'file:///etc/passwd'],
    ['file:///a/b/../../c', 'file:///c'],
    ['db://host/tables/../secrets', 'db://host/secrets'],
    ['file:///docs/%2e%2e/etc/passwd', 'file:///etc/passwd'],
    ['file:///a/%2e%2e/b/../c', 'file:///c'],
    ['file:///docs//x/./y/', 'file:///docs/x/y'],
    ['demo://resource/static/document/features.md', 'demo://resource/static/document/features.md'],
    ['file:///with space/a?q=1#frag', 'file:///with%20space/a?q=1#frag'],
  ];
  for (const [input, expected] of vectors) {
    it(`normalizes ${input}`, () => {
      assert.equal(normalizeResourceUri(input), expected);
    });
  }

  it('never climbs above the root', () => {
    assert.equal(normalizeResourceUri('file:///../../etc/passwd'), 'file:///etc/passwd');
  });
});
