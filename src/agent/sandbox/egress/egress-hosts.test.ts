import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { egressLabel, hostMatcher, parseDestination } from './egress-hosts.js';

describe('egress destinations', () => {
  it('parses CONNECT authorities and URL hosts, refusing anything else', () => {
    assert.deepEqual(parseDestination('PyPI.org:443'), { host: 'pypi.org', port: 443 });
    assert.deepEqual(parseDestination('[2001:db8::1]:8443'), { host: '2001:db8::1', port: 8443 });
    assert.deepEqual(parseDestination('example.com', 80), { host: 'example.com', port: 80 });
    assert.deepEqual(
      parseDestination('example.com.:443'),
      { host: 'example.com', port: 443 },
      'a trailing dot names the same host',
    );
    for (const bad of [
      'example.com',
      'example.com:0',
      'example.com:70000',
      'user@example.com:443',
      'a b:443',
      '',
      'http://x:80',
    ]) {
      assert.equal(parseDestination(bad), undefined, bad);
    }
  });

  it('matches allowlist entries exactly, by *.domain suffix, and by port when one is given', () => {
    const allowed = hostMatcher(['pypi.org', '*.github.com:443', '10.0.0.5:8080', '[2001:db8::1]']);
    assert.equal(allowed({ host: 'pypi.org', port: 443 }), true);
    assert.equal(allowed({ host: 'pypi.org', port: 80 }), true, 'no port = any port');
    assert.equal(allowed({ host: 'files.pypi.org', port: 443 }), false, 'an exact entry does not cover subdomains');
    assert.equal(allowed({ host: 'api.github.com', port: 443 }), true);
    assert.equal(allowed({ host: 'api.github.com', port: 22 }), false);
    assert.equal(allowed({ host: 'github.com', port: 443 }), false, '*.domain is subdomains only');
    assert.equal(allowed({ host: 'evilgithub.com', port: 443 }), false);
    assert.equal(allowed({ host: '10.0.0.5', port: 8080 }), true);
    assert.equal(allowed({ host: '2001:db8::1', port: 443 }), true);
  });

  it('labels destinations the way cards, "Always here" and network policies name them', () => {
    assert.equal(egressLabel({ host: 'pypi.org', port: 443 }), 'network:pypi.org:443');
    assert.equal(egressLabel({ host: '2001:db8::1', port: 443 }), 'network:[2001:db8::1]:443');
  });
});
