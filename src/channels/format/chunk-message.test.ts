/** Tests for chunkMessage: the reference scenarios, the fixed infinite loop, and a random-text property test. */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { chunkMessage } from './chunk-message.js';

const fences = (chunk: string): number => chunk.split('```').length - 1;
const visible = (text: string): string => text.replace(/```[\w+#.-]*/g, '').replace(/\s/g, '');

describe('chunkMessage', () => {
  it('returns the text unchanged when it fits, including the empty string', () => {
    assert.deepEqual(chunkMessage('', 100), ['']);
    assert.deepEqual(chunkMessage('short text', 100), ['short text']);
    assert.deepEqual(chunkMessage('a'.repeat(50), 50), ['a'.repeat(50)]);
  });

  it('hard-splits text without spaces into exact pieces', () => {
    assert.deepEqual(chunkMessage('a'.repeat(30), 10), ['a'.repeat(10), 'a'.repeat(10), 'a'.repeat(10)]);
    const chunks = chunkMessage('x'.repeat(5000), 2000);
    assert.equal(chunks.length, 3);
    assert.equal(chunks.join(''), 'x'.repeat(5000));
  });

  it('splits at newlines and spaces and never starts a chunk with a newline', () => {
    const lines = chunkMessage('line one\nline two\nline three', 18);
    assert.ok(lines.length >= 2);
    assert.ok(lines.join('\n').includes('line one') && lines.join('\n').includes('line three'));
    const words = chunkMessage('word1 word2 word3 word4', 12);
    assert.ok(words.length >= 2);
    assert.ok(words.every((chunk) => !chunk.startsWith('\n')));
    assert.equal(chunkMessage('hello world', 5)[0], 'hello');
  });

  it('keeps every chunk of fenced text balanced', () => {
    for (const [text, max] of [
      ['before\n```\ncode line 1\ncode line 2\ncode line 3\n```\nafter', 30],
      ['```\nblock1\n```\ntext\n```\nblock2\n```', 20],
    ] as const) {
      for (const chunk of chunkMessage(text, max)) {
        assert.equal(fences(chunk) % 2, 0, chunk);
        assert.ok(chunk.length <= max);
      }
    }
  });

  it('terminates on a code line longer than the limit (the reference hangs here)', () => {
    const text = `intro\n\`\`\`python\n${'y'.repeat(2500)}\n\`\`\`\nafter`;
    const chunks = chunkMessage(text, 2000);
    assert.ok(chunks.length >= 2);
    assert.ok(chunks.every((chunk) => chunk.length <= 2000 && fences(chunk) % 2 === 0));
    assert.ok(chunks[1]?.startsWith('```python\n'));
    assert.equal(visible(chunks.join('\n')), visible(text));
  });

  it('holds its invariants on random text with code fences', () => {
    let seed = 12345;
    const random = (): number => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed / 2147483648;
    };
    const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)] as T;
    for (let round = 0; round < 400; round += 1) {
      const lines: string[] = [];
      const count = 1 + Math.floor(random() * 60);
      for (let i = 0; i < count; i += 1) {
        const kind = random();
        if (kind < 0.15) lines.push(pick(['```', '```ts', '```python']));
        else if (kind < 0.25) lines.push('z'.repeat(1 + Math.floor(random() * 300)));
        else if (kind < 0.3) lines.push('');
        else
          lines.push(
            Array.from({ length: 1 + Math.floor(random() * 15) }, () =>
              pick(['alpha', 'be', 'c', 'delta42', 'é', '*x*']),
            ).join(' '),
          );
      }
      const text = lines.join('\n');
      const max = 40 + Math.floor(random() * 200);
      const chunks = chunkMessage(text, max);
      const balancedInput = fences(text) % 2 === 0;
      for (const chunk of chunks) {
        assert.ok(chunk.length <= max, `chunk longer than ${max}`);
        if (balancedInput)
          assert.equal(fences(chunk) % 2, 0, `unbalanced chunk at max ${max}: ${JSON.stringify(chunk)}`);
      }
      assert.equal(visible(chunks.join('\n')), visible(text));
    }
  });
});
