import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { argumentErrorPreparation, parseToolArguments } from './parse-tool-arguments.js';

describe('parseToolArguments', () => {
  it('parses a JSON object', () => {
    assert.deepEqual(parseToolArguments('{"command": "ls -la"}', 'command'), {
      ok: true,
      value: { command: 'ls -la' },
    });
  });

  it('treats empty arguments as no arguments', () => {
    assert.deepEqual(parseToolArguments('', 'command'), { ok: true, value: {} });
    assert.deepEqual(parseToolArguments('  '), { ok: true, value: {} });
  });

  it('assigns a bare string to the primary key, untrimmed', () => {
    assert.deepEqual(parseToolArguments('ls -la ', 'command'), { ok: true, value: { command: 'ls -la ' } });
  });

  it('repairs common JSON mistakes (single quotes, trailing comma, missing brace)', () => {
    assert.deepEqual(parseToolArguments("{'path': 'a.txt', 'limit': 5,}", 'path'), {
      ok: true,
      value: { path: 'a.txt', limit: 5 },
    });
    assert.deepEqual(parseToolArguments('{"command": "echo hi"', 'command'), {
      ok: true,
      value: { command: 'echo hi' },
    });
  });

  it('rescues one known key from text that cannot be repaired as an object', () => {
    const parsed = parseToolArguments('call bash with "command": "echo \\"hi\\"" please', undefined);
    assert.deepEqual(parsed, { ok: true, value: { command: 'echo "hi"' } });
  });

  it('unwraps double-encoded objects and rejects non-object JSON', () => {
    assert.deepEqual(parseToolArguments(JSON.stringify(JSON.stringify({ query: 'x' })), 'query'), {
      ok: true,
      value: { query: 'x' },
    });
    const array = parseToolArguments('[1, 2]', 'query');
    assert.equal(array.ok, false);
    assert.match(
      array.ok ? '' : array.error,
      /^JSON parse error: arguments must be a JSON object, got an array\nRaw arguments: \[1, 2\]/,
    );
    assert.equal(parseToolArguments('42', undefined).ok, false);
  });

  it('without a primary key, a bare string is an error the model can read', () => {
    const parsed = parseToolArguments('do the thing', undefined);
    assert.equal(parsed.ok, false);
    const error = parsed.ok ? '' : parsed.error;
    assert.match(error, /^JSON parse error: .+\nRaw arguments: do the thing$/);
    const item = argumentErrorPreparation('task', 'do the thing', error);
    assert.ok(item.header.startsWith('✗ task: JSON parse error'));
    assert.equal(item.needsApproval, false);
    assert.equal(item.error, error);
  });
});
