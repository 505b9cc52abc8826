/** OpenAI-specific wire behaviour against the fake: request shape, tool history, images, reasoning fields. */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startFakeLlmServer, type FakeLlmServer } from '../fakes/fake-llm-server.js';
import { createProvider } from '../../src/agent/providers/create-provider.js';
import type { Message } from '../../src/agent/messages.js';
import type { ModelProvider, ModelStreamPart } from '../../src/agent/providers/model-provider.js';

type Body = Record<string, unknown> & { messages: Array<Record<string, unknown>> };

async function collect(parts: AsyncIterable<ModelStreamPart>): Promise<ModelStreamPart[]> {
  const out: ModelStreamPart[] = [];
  for await (const part of parts) out.push(part);
  return out;
}

describe('openai provider request shape', () => {
  let fake: FakeLlmServer;
  let provider: ModelProvider;
  const signal = new AbortController().signal;

  before(async () => {
    fake = await startFakeLlmServer();
    provider = createProvider({
      provider: 'openai',
      model: 'local-vision',
      base_url: fake.url,
      context_window: 32768,
      max_tokens: 2048,
      supports_vision: true,
    });
  });
  after(async () => {
    await fake.close();
  });

  function lastBody(): Body {
    return fake.requests.at(-1)?.body as Body;
  }

  it('sends tools, token limit, temperature and asks for usage', async () => {
    fake.enqueue({ text: 'ok' });
    await collect(
      provider.stream(
        {
          model: 'local-vision',
          maxTokens: 100,
          temperature: 0.2,
          messages: [
            { role: 'system', content: 'sys' },
            { role: 'user', content: 'hi' },
          ],
          tools: [{ name: 'math', description: 'Calculate', parameters: { type: 'object', properties: {} } }],
        },
        { signal },
      ),
    );
    const body = lastBody();
    assert.equal(body['model'], 'local-vision');
    assert.equal(body['max_tokens'], 100);
    assert.equal(body['temperature'], 0.2);
    assert.deepEqual(body['stream_options'], { include_usage: true });
    assert.deepEqual(body['tools'], [
      {
        type: 'function',
        function: { name: 'math', description: 'Calculate', parameters: { type: 'object', properties: {} } },
      },
    ]);
    assert.deepEqual(body.messages, [
      { role: 'system', content: 'sys' },
      { role: 'user', content: 'hi' },
    ]);
    assert.equal(provider.capabilities('local-vision').contextWindow, 32768);
  });

  it('sends tool calls and results in Chat Completions form, answering an unanswered call', async () => {
    const history: Message[] = [
      { role: 'user', content: 'Two things' },
      {
        role: 'assistant',
        content: '',
        toolCalls: [
          { id: 'call_1', name: 'math', arguments: '{"expr":"1+1"}' },
          { id: 'call_2', name: 'math', arguments: '{"expr":' },
        ],
      },
      { role: 'tool', toolCallId: 'call_1', name: 'math', content: '2' },
    ];
    fake.enqueue({ text: 'Two.' });
    await collect(provider.stream({ model: 'local-vision', messages: history, tools: [] }, { signal }));
    const sent = lastBody().messages;
    assert.deepEqual(sent[1], {
      role: 'assistant',
      content: null,
      tool_calls: [
        { id: 'call_1', type: 'function', function: { name: 'math', arguments: '{"expr":"1+1"}' } },
        { id: 'call_2', type: 'function', function: { name: 'math', arguments: '{}' } },
      ],
    });
    assert.deepEqual(sent[2], { role: 'tool', tool_call_id: 'call_1', content: '2' });
    assert.equal(sent[3]?.['role'], 'tool');
    assert.equal(sent[3]?.['tool_call_id'], 'call_2');
    assert.equal(lastBody()['tools'], undefined);
  });

  it('sends images as image_url data URLs', async () => {
    fake.enqueue({ text: 'A dot.' });
    const messages: Message[] = [
      {
        role: 'user',
        content: [
          { type: 'text', text: 'What is this?' },
          { type: 'image', mediaType: 'image/jpeg', data: '/9j/4AAQ' },
        ],
      },
    ];
    await collect(provider.stream({ model: 'local-vision', messages, tools: [] }, { signal }));
    assert.deepEqual(lastBody().messages[0]?.['content'], [
      { type: 'text', text: 'What is this?' },
      { type: 'image_url', image_url: { url: 'data:image/jpeg;base64,/9j/4AAQ' } },
    ]);
  });

  it('reads reasoning from the llama.cpp `reasoning` field too', async () => {
    fake.enqueue({ reasoning: 'thinking...', reasoningField: 'reasoning', text: 'answer' });
    const parts = await collect(
      provider.stream({ model: 'local-vision', messages: [{ role: 'user', content: 'q' }], tools: [] }, { signal }),
    );
    assert.deepEqual(
      parts.filter((part) => part.type !== 'finish'),
      [
        { type: 'reasoning-delta', text: 'thinking...' },
        { type: 'text-delta', text: 'answer' },
        { type: 'text-end', finishReason: 'stop' },
      ],
    );
  });

  it('repairs a tool call with no id and a padded name from a local server', async () => {
    fake.enqueue({ toolCalls: [{ id: '', name: ' math ', arguments: '' }], rawFinishReason: 'stop' });
    const parts = await collect(
      provider.stream({ model: 'local-vision', messages: [{ role: 'user', content: 'q' }], tools: [] }, { signal }),
    );
    const call = parts.find((part) => part.type === 'tool-call');
    assert.ok(call?.type === 'tool-call');
    assert.match(call.call.id, /^call_[0-9a-f]+$/);
    assert.equal(call.call.name, 'math');
    assert.equal(call.call.arguments, '{}');
    const finish = parts.at(-1);
    assert.ok(finish?.type === 'finish');
    assert.equal(finish.finishReason, 'tool-calls');
  });
});
