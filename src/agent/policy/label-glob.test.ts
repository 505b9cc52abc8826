import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { globMatches, matchesAutoApprove } from './label-glob.js';

describe('globMatches (fnmatch semantics on approval labels)', () => {
  it('matches the whole label, not a part of it', () => {
    assert.equal(globMatches('bash', 'bash'), true);
    assert.equal(globMatches('bash', 'bash_exec'), false);
    assert.equal(globMatches('ash', 'bash'), false);
  });

  it('lets * span any run, including / and _', () => {
    assert.equal(globMatches('bash*', 'bash_exec'), true);
    assert.equal(globMatches('mcp__github__*', 'mcp__github__create_issue'), true);
    assert.equal(globMatches('mcp_resource__file:///docs/*', 'mcp_resource__file:///docs/a/b/c.md'), true);
    assert.equal(globMatches('*', 'mcp_resource__file:///etc/passwd'), true);
    assert.equal(globMatches('mcp__*__delete', 'mcp__git/hub__delete'), true);
    assert.equal(globMatches('*', ''), true);
  });

  it('is case-sensitive', () => {
    assert.equal(globMatches('Bash*', 'bash'), false);
    assert.equal(globMatches('bash', 'BASH'), false);
  });

  it('supports ? and character classes, and leaves other characters literal', () => {
    assert.equal(globMatches('read_fil?', 'read_file'), true);
    assert.equal(globMatches('read_fil?', 'read_fi'), false);
    assert.equal(globMatches('[ab]ash', 'bash'), true);
    assert.equal(globMatches('[!ab]ash', 'bash'), false);
    assert.equal(globMatches('[!ab]ash', 'dash'), true);
    assert.equal(globMatches('a.b', 'axb'), false);
    assert.equal(globMatches('{a,b}', 'a'), false);
    assert.equal(globMatches('.hidden*', '.hidden_tool'), true);
    assert.equal(globMatches('a?b', 'a/b'), true);
    assert.equal(globMatches('[a-c]x', 'bx'), true);
    assert.equal(globMatches('[c-a]x', 'bx'), false);
    assert.equal(globMatches('[-_]x', '_x'), true);
    assert.equal(globMatches('[]]x', ']x'), true);
    assert.equal(globMatches('[x', '[x'), true);
  });

  it('has no negation, grouping or escaping beyond fnmatch', () => {
    assert.equal(globMatches('!bash', 'ls'), false);
    assert.equal(globMatches('!bash', '!bash'), true);
    assert.equal(globMatches('(a|b)', 'a'), false);
    assert.equal(globMatches('(a|b)', '(a|b)'), true);
    assert.equal(globMatches('!(a)', 'b'), false);
    assert.equal(globMatches('a+', 'aa'), false);
    assert.equal(globMatches('foo\\*', 'foo*'), false);
    assert.equal(globMatches('foo\\*', 'foo\\bar'), true);
    assert.equal(globMatches('$x^', '$x^'), true);
  });
});

describe('matchesAutoApprove', () => {
  it('matches entries exactly, or as globs only when they contain *', () => {
    assert.equal(matchesAutoApprove('bash', ['bash']), true);
    assert.equal(matchesAutoApprove('mcp__fs__read', ['mcp__fs__*']), true);
    assert.equal(matchesAutoApprove('read_file', ['read_fil?']), false);
    assert.equal(matchesAutoApprove('bash', ['[b]ash']), false);
    assert.equal(matchesAutoApprove('bash', []), false);
    assert.equal(matchesAutoApprove('write_file', ['bash', 'edit_*']), false);
  });
});
