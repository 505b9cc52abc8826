import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Message } from '../../messages.js';
import { CONTINUE_PLACEHOLDER, IMAGE_OMITTED, toAnthropicMessages } from './to-anthropic-messages.js';

describe('toAnthropicMessages', () => {
  it('joins system messages and merges consecutive user turns', () => {
    const history: Message[] = [
      { role: 'system', content: 'one' },
      { role: 'system', content: 'two' },
      { role: 'user', content: 'a' },
      { role: 'user', content: 'b' },
    ];
    assert.deepEqual(toAnthropicMessages(history, { supportsVision: true }), {
      system: 'one\n\ntwo',
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'a' },
            { type: 'text', text: 'b' },
          ],
        },
      ],
    });
  });

  it('starts with a user turn and drops empty assistant turns', () => {
    const history: Message[] = [
      { role: 'assistant', content: 'hello' },
      { role: 'assistant', content: '' },
      { role: 'user', content: 'hi' },
    ];
    const { messages } = toAnthropicMessages(history, { supportsVision: true });
    assert.deepEqual(messages, [
      { role: 'user', content: [{ type: 'text', text: CONTINUE_PLACEHOLDER }] },
      { role: 'assistant', content: [{ type: 'text', text: 'hello' }] },
      { role: 'user', content: [{ type: 'text', text: 'hi' }] },
    ]);
  });

  it('replays provider blocks but drops tool_use blocks whose calls were discarded', () => {
    const history: Message[] = [
      { role: 'user', content: 'q' },
      {
        role: 'assistant',
        content: 'partial',
        providerData: [
          { type: 'thinking', thinking: 't', signature: 's' },
          { type: 'text', text: 'partial' },
          { type: 'tool_use', id: 'gone', name: 'x', input: {} },
        ],
      },
    ];
    const { messages } = toAnthropicMessages(history, { supportsVision: true });
    assert.deepEqual(messages[1], {
      role: 'assistant',
      content: [
        { type: 'thinking', thinking: 't', signature: 's' },
        { type: 'text', text: 'partial' },
      ],
    });
  });

  it('puts images in tool results and omits them without vision', () => {
    const history: Message[] = [
      { role: 'user', content: 'q' },
      { role: 'assistant', content: '', toolCalls: [{ id: 'c', name: 'shot', arguments: '{}' }] },
      {
        role: 'tool',
        toolCallId: 'c',
        name: 'shot',
        content: [{ type: 'image', mediaType: 'image/png', data: 'AAA' }],
      },
    ];
    const withVision = toAnthropicMessages(history, { supportsVision: true }).messages[2];
    assert.deepEqual(withVision?.content, [
      {
        type: 'tool_result',
        tool_use_id: 'c',
        content: [{ type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'AAA' } }],
      },
    ]);
    const without = toAnthropicMessages(history, { supportsVision: false }).messages[2];
    assert.deepEqual(without?.content, [
      { type: 'tool_result', tool_use_id: 'c', content: [{ type: 'text', text: IMAGE_OMITTED }] },
    ]);
  });
});
