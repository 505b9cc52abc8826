import assert from 'node:assert/strict';
import { test } from 'node:test';
import { newHexId } from './ids.js';

test('hex ids are 2 characters per byte, lowercase hex, and never repeat across pool refills', () => {
  const seen = new Set<string>();
  // 1,000 ids of 16 bytes use the 4 KiB pool about four times over.
  for (let i = 0; i < 1000; i++) {
    const id = newHexId();
    assert.match(id, /^[0-9a-f]{32}$/);
    assert.equal(seen.has(id), false, 'an id was handed out twice');
    seen.add(id);
  }
  assert.match(newHexId(8), /^[0-9a-f]{16}$/);
  assert.match(newHexId(5000), /^[0-9a-f]{10000}$/);
});
