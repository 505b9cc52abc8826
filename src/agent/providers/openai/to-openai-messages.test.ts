import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Message } from '../../messages.js';
import { IMAGE_OMITTED, toOpenAIMessages } from './to-openai-messages.js';

describe('toOpenAIMessages', () => {
  it('keeps system, user and assistant text as plain messages', () => {
    const history: Message[] = [
      { role: 'system', content: 'sys' },
      { role: 'user', content: 'hi' },
      { role: 'assistant', content: 'hello', reasoning: 'not replayed', providerData: [{ type: 'thinking' }] },
    ];
    assert.deepEqual(toOpenAIMessages(history, { supportsVision: false }), [
      { role: 'system', content: 'sys' },
      { role: 'user', content: 'hi' },
      { role: 'assistant', content: 'hello' },
    ]);
  });

  it('replaces images with a note when the model has no vision', () => {
    const history: Message[] = [
      {
        role: 'user',
        content: [
          { type: 'text', text: 'see' },
          { type: 'image', mediaType: 'image/png', data: 'AAA' },
        ],
      },
    ];
    assert.deepEqual(toOpenAIMessages(history, { supportsVision: false }), [
      {
        role: 'user',
        content: [
          { type: 'text', text: 'see' },
          { type: 'text', text: IMAGE_OMITTED },
        ],
      },
    ]);
  });

  it('sends tool-result images in a user message after the tool results', () => {
    const history: Message[] = [
      { role: 'assistant', content: 'look', toolCalls: [{ id: 'c1', name: 'screenshot', arguments: '{}' }] },
      {
        role: 'tool',
        toolCallId: 'c1',
        name: 'screenshot',
        content: [
          { type: 'text', text: 'taken' },
          { type: 'image', mediaType: 'image/png', data: 'AAA' },
        ],
      },
    ];
    const out = toOpenAIMessages(history, { supportsVision: true });
    assert.equal(out.length, 3);
    assert.deepEqual(out[1], {
      role: 'tool',
      tool_call_id: 'c1',
      content: 'taken\n[1 image(s) attached in the next message]',
    });
    assert.deepEqual(out[2], {
      role: 'user',
      content: [
        { type: 'text', text: 'Image(s) returned by tool call c1:' },
        { type: 'image_url', image_url: { url: 'data:image/png;base64,AAA' } },
      ],
    });
  });
});
