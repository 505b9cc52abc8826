/** Anthropic-specific wire behaviour against the fake: thinking replay with signatures, request shape, images. */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startFakeLlmServer, type FakeLlmServer } from '../fakes/fake-llm-server.js';
import { createProvider } from '../../src/agent/providers/create-provider.js';
import type { Message } from '../../src/agent/messages.js';
import type { ModelProvider, ModelRequest, ModelStreamPart } from '../../src/agent/providers/model-provider.js';

type Body = {
  system?: string;
  max_tokens?: number;
  thinking?: unknown;
  tools?: unknown[];
  messages: Array<{ role: string; content: unknown }>;
};

async function collect(parts: AsyncIterable<ModelStreamPart>): Promise<ModelStreamPart[]> {
  const out: ModelStreamPart[] = [];
  for await (const part of parts) out.push(part);
  return out;
}

describe('anthropic provider request and replay', () => {
  let fake: FakeLlmServer;
  let provider: ModelProvider;
  const signal = new AbortController().signal;

  before(async () => {
    fake = await startFakeLlmServer({ apiKey: 'sk-ant-test' });
    provider = createProvider(
      {
        provider: 'anthropic',
        model: 'claude-test',
        api_key: 'sk-ant-test',
        base_url: fake.origin,
        context_window: 200000,
        max_tokens: 8192,
        supports_vision: true,
      },
      { alias: 'claude' },
    );
  });
  after(async () => {
    await fake.close();
  });

  function lastBody(): Body {
    return fake.requests.at(-1)?.body as Body;
  }

  it('replays thinking blocks with their signature on the next request', async () => {
    fake.enqueue({
      reasoning: ['Need the ', 'weather tool.'],
      thinkingSignature: 'sig-abc123',
      toolCalls: [{ id: 'toolu_1', name: 'get_weather', arguments: '{"city":"Paris"}' }],
    });
    const first: ModelRequest = {
      model: 'claude-test',
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'Weather?' },
      ],
      tools: [
        { name: 'get_weather', description: 'Weather', parameters: { properties: { city: { type: 'string' } } } },
      ],
      reasoningEffort: 'medium',
    };
    const parts = await collect(provider.stream(first, { signal }));
    const body = lastBody();
    assert.equal(body.system, 'Be brief.');
    assert.equal(body.max_tokens, 8192);
    assert.deepEqual(body.thinking, { type: 'enabled', budget_tokens: 4096 });
    assert.deepEqual(body.tools, [
      {
        name: 'get_weather',
        description: 'Weather',
        input_schema: { type: 'object', properties: { city: { type: 'string' } } },
      },
    ]);
    const finish = parts.at(-1);
    assert.ok(finish?.type === 'finish');
    const call = parts.find((part) => part.type === 'tool-call');
    assert.ok(call?.type === 'tool-call');

    const history: Message[] = [
      ...first.messages,
      {
        role: 'assistant',
        content: '',
        toolCalls: [call.call],
        reasoning: 'Need the weather tool.',
        providerData: finish.providerData,
      },
      { role: 'tool', toolCallId: 'toolu_1', name: 'get_weather', content: 'Sunny, 21 C' },
    ];
    fake.enqueue({ text: 'Sunny.' });
    await collect(provider.stream({ ...first, messages: history }, { signal }));
    const replay = lastBody().messages;
    assert.equal(replay.length, 3);
    assert.deepEqual(replay[1], {
      role: 'assistant',
      content: [
        { type: 'thinking', thinking: 'Need the weather tool.', signature: 'sig-abc123' },
        { type: 'tool_use', id: 'toolu_1', name: 'get_weather', input: { city: 'Paris' } },
      ],
    });
    assert.deepEqual(replay[2], {
      role: 'user',
      content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'Sunny, 21 C' }],
    });
  });

  it('merges parallel tool results into one user turn and sends malformed arguments as an empty input', async () => {
    const history: Message[] = [
      { role: 'user', content: 'Two cities' },
      {
        role: 'assistant',
        content: 'Checking both.',
        toolCalls: [
          { id: 'toolu_a', name: 'get_weather', arguments: '{"city":"Paris"}' },
          { id: 'toolu_b', name: 'get_weather', arguments: '{"city": "Os' },
        ],
      },
      { role: 'tool', toolCallId: 'toolu_a', name: 'get_weather', content: 'Sunny' },
      {
        role: 'tool',
        toolCallId: 'toolu_b',
        name: 'get_weather',
        content: 'Error: invalid JSON arguments',
        isError: true,
      },
      { role: 'user', content: 'And?' },
    ];
    fake.enqueue({ text: 'Done.' });
    const parts = await collect(provider.stream({ model: 'claude-test', messages: history, tools: [] }, { signal }));
    assert.equal(parts.at(-1)?.type, 'finish');
    const sent = lastBody().messages;
    assert.deepEqual(
      sent.map((message) => message.role),
      ['user', 'assistant', 'user'],
    );
    assert.deepEqual(sent[1]?.content, [
      { type: 'text', text: 'Checking both.' },
      { type: 'tool_use', id: 'toolu_a', name: 'get_weather', input: { city: 'Paris' } },
      { type: 'tool_use', id: 'toolu_b', name: 'get_weather', input: {} },
    ]);
    assert.deepEqual(sent[2]?.content, [
      { type: 'tool_result', tool_use_id: 'toolu_a', content: 'Sunny' },
      { type: 'tool_result', tool_use_id: 'toolu_b', content: 'Error: invalid JSON arguments', is_error: true },
      { type: 'text', text: 'And?' },
    ]);
  });

  it('sends images as base64 image blocks', async () => {
    fake.enqueue({ text: 'A red dot.' });
    const messages: Message[] = [
      {
        role: 'user',
        content: [
          { type: 'text', text: 'What is this?' },
          { type: 'image', mediaType: 'image/png', data: 'iVBORw0KGgo=' },
        ],
      },
    ];
    await collect(provider.stream({ model: 'claude-test', messages, tools: [] }, { signal }));
    assert.deepEqual(lastBody().messages[0]?.content, [
      { type: 'text', text: 'What is this?' },
      { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'iVBORw0KGgo=' } },
    ]);
  });

  it('maps max_tokens to a length finish', async () => {
    fake.enqueue({ text: 'Cut', finishReason: 'length' });
    const parts = await collect(
      provider.stream({ model: 'claude-test', messages: [{ role: 'user', content: 'Long' }], tools: [] }, { signal }),
    );
    const finish = parts.at(-1);
    assert.ok(finish?.type === 'finish');
    assert.equal(finish.finishReason, 'length');
    assert.equal(finish.providerData, undefined);
  });
});
