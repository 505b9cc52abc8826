import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Bm25Index, tokenize } from './bm25.js';

describe('tokenize', () => {
  it('splits on _ - . / and whitespace, lower-cases, drops empties, keeps other punctuation', () => {
    assert.deepEqual(tokenize('mcp__GitHub__create-issue'), ['mcp', 'github', 'create', 'issue']);
    assert.deepEqual(tokenize('  Read a/b.txt\tfile  '), ['read', 'a', 'b', 'txt', 'file']);
    assert.deepEqual(tokenize("Don't (stop), ok!"), ["don't", '(stop),', 'ok!']);
    assert.deepEqual(tokenize('__--..//'), []);
  });
});

describe('Bm25Index', () => {
  it('reproduces the reference formula (k1 1.5, b 0.75, idf ln((N-df+.5)/(df+.5)+1))', () => {
    const index = new Bm25Index(['a b', 'a c c', 'd']);
    // N = 3, avgdl = 2; "c": df 1, tf 2 in doc 1 (dl 3).
    const idf = Math.log((3 - 1 + 0.5) / (1 + 0.5) + 1);
    const expected = (idf * (2 * 2.5)) / (2 + 1.5 * (1 - 0.75 + (0.75 * 3) / 2));
    const hits = index.search('c', 10);
    assert.equal(hits.length, 1);
    assert.equal(hits[0]?.index, 1);
    assert.ok(Math.abs((hits[0]?.score ?? 0) - expected) < 1e-12);
    // Repeated query tokens count repeatedly.
    assert.ok(Math.abs((index.search('c c', 10)[0]?.score ?? 0) - 2 * expected) < 1e-12);
  });

  it('returns [] for an empty corpus, an empty query, or no match', () => {
    assert.deepEqual(new Bm25Index([]).search('anything', 5), []);
    assert.deepEqual(new Bm25Index(['a b']).search('  ', 5), []);
    assert.deepEqual(new Bm25Index(['a b']).search('zzz', 5), []);
  });

  it('respects k, ranks an exact name match first, breaks ties by index', () => {
    const index = new Bm25Index([
      'send_email send a message',
      'read_file read a file',
      'write_file write a file',
      'list_files list files',
    ]);
    assert.equal(index.search('read_file', 5)[0]?.index, 1);
    assert.equal(index.search('a', 2).length, 2);
    const ties = index.search('a', 5);
    assert.deepEqual(
      ties.map((hit) => hit.index),
      [0, 1, 2],
    );
  });
});
