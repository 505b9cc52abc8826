import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Message } from '../messages.js';
import { MISSING_TOOL_RESULT, repairToolPairs } from './repair-tool-pairs.js';

describe('repairToolPairs', () => {
  it('answers missing results, drops orphans and duplicates', () => {
    const history: Message[] = [
      { role: 'tool', toolCallId: 'orphan', name: 'x', content: 'lost' },
      { role: 'user', content: 'go' },
      {
        role: 'assistant',
        content: '',
        toolCalls: [
          { id: 'a', name: 'x', arguments: '{}' },
          { id: 'b', name: 'y', arguments: '{}' },
        ],
      },
      { role: 'tool', toolCallId: 'a', name: 'x', content: 'one' },
      { role: 'tool', toolCallId: 'a', name: 'x', content: 'dup' },
      { role: 'user', content: 'next' },
    ];
    assert.deepEqual(repairToolPairs(history), [
      { role: 'user', content: 'go' },
      history[2],
      { role: 'tool', toolCallId: 'a', name: 'x', content: 'one' },
      { role: 'tool', toolCallId: 'b', name: 'y', content: MISSING_TOOL_RESULT, isError: true },
      { role: 'user', content: 'next' },
    ]);
  });

  it('leaves a well-formed history unchanged', () => {
    const history: Message[] = [
      { role: 'system', content: 's' },
      { role: 'user', content: 'u' },
      { role: 'assistant', content: 'a' },
    ];
    assert.deepEqual(repairToolPairs(history), history);
  });
});
