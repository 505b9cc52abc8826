import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { truncateOutput } from './truncate-output.js';

describe('truncateOutput', () => {
  it('leaves output within the limit unchanged', () => {
    assert.equal(truncateOutput('hello', 5), 'hello');
    assert.equal(truncateOutput('x'.repeat(50), 0), 'x'.repeat(50));
  });

  it('keeps head and tail around a marker that says how much was cut', () => {
    const output = `${'a'.repeat(100)}${'b'.repeat(100)}`;
    const cut = truncateOutput(output, 40);
    assert.ok(cut.startsWith('a'.repeat(20)));
    assert.ok(cut.endsWith('b'.repeat(20)));
    assert.match(cut, /\[160 chars truncated — output exceeded 40 char limit\]/);
  });
});
