import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Message } from '../messages.js';
import { estimateMessageTokens, estimateRequestTokens, estimateTokens } from './estimate-tokens.js';

describe('estimateMessageTokens', () => {
  it('counts about four characters per token, at least one per message', () => {
    assert.equal(estimateMessageTokens({ role: 'user', content: 'a'.repeat(400) }), 100);
    assert.equal(estimateMessageTokens({ role: 'user', content: 'abcde' }), 2);
    assert.equal(estimateMessageTokens({ role: 'user', content: '' }), 1);
  });

  it('counts tool-call names and arguments of assistant messages', () => {
    const message: Message = {
      role: 'assistant',
      content: 'hi',
      toolCalls: [{ id: 'x', name: 'bash', arguments: '{"command": "ls"}' }],
    };
    // 2 + 4 + 17 characters, as in the reference's char count of 23.
    assert.equal(estimateMessageTokens(message), Math.ceil(23 / 4));
  });

  it('counts 1000 tokens per image and the text parts by length', () => {
    const message: Message = {
      role: 'user',
      content: [
        { type: 'text', text: 'a'.repeat(40) },
        { type: 'image', mediaType: 'image/png', data: 'x'.repeat(100_000) },
        { type: 'image', mediaType: 'image/png', data: 'y' },
      ],
    };
    assert.equal(estimateMessageTokens(message), 10 + 2000);
  });
});

describe('estimateTokens / estimateRequestTokens', () => {
  it('sums messages, and adds the tool schemas of a request', () => {
    const messages: Message[] = [
      { role: 'system', content: 'a'.repeat(40) },
      { role: 'user', content: 'b'.repeat(80) },
    ];
    assert.equal(estimateTokens(messages), 30);
    assert.equal(estimateTokens([]), 0);
    const tool = { name: 'bash', description: 'd', parameters: { type: 'object' } };
    const toolTokens = Math.ceil(JSON.stringify(tool).length / 4);
    assert.equal(estimateRequestTokens({ model: 'm', messages, tools: [tool] }), 30 + toolTokens);
    assert.equal(estimateRequestTokens({ model: 'm', messages, tools: [] }), 30);
  });
});
