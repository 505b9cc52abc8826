import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { ChatCompletionChunk } from 'openai/resources/chat/completions';
import type { ModelStreamPart } from '../model-provider.js';
import { fromOpenAIStream, mapOpenAIFinish } from './from-openai-stream.js';

function chunk(delta: Record<string, unknown>, finish: string | null = null): ChatCompletionChunk {
  return {
    id: 'c',
    object: 'chat.completion.chunk',
    created: 0,
    model: 'm',
    choices: [{ index: 0, delta, finish_reason: finish, logprobs: null }],
  } as ChatCompletionChunk;
}

async function run(chunks: ChatCompletionChunk[]): Promise<ModelStreamPart[]> {
  async function* source(): AsyncGenerator<ChatCompletionChunk> {
    yield* chunks;
  }
  const out: ModelStreamPart[] = [];
  for await (const part of fromOpenAIStream(source())) out.push(part);
  return out;
}

describe('fromOpenAIStream', () => {
  it('accumulates interleaved tool calls by index and emits them complete at the end', async () => {
    const parts = await run([
      chunk({ tool_calls: [{ index: 1, id: 'b', function: { name: 'two', arguments: '{"y"' } }] }),
      chunk({ tool_calls: [{ index: 0, id: 'a', function: { name: 'one', arguments: '{}' } }] }),
      chunk({ tool_calls: [{ index: 1, function: { arguments: ':2}' } }] }),
      chunk({}, 'tool_calls'),
    ]);
    assert.deepEqual(parts, [
      { type: 'text-end', finishReason: 'tool-calls' },
      { type: 'tool-call', call: { id: 'a', name: 'one', arguments: '{}' } },
      { type: 'tool-call', call: { id: 'b', name: 'two', arguments: '{"y":2}' } },
      { type: 'finish', finishReason: 'tool-calls' },
    ]);
  });

  it('reads usage from the usage-only chunk and reasoning_content deltas', async () => {
    const usageChunk = {
      id: 'c',
      object: 'chat.completion.chunk',
      created: 0,
      model: 'm',
      choices: [],
      usage: { prompt_tokens: 3, completion_tokens: 4, total_tokens: 7 },
    } as ChatCompletionChunk;
    const parts = await run([chunk({ reasoning_content: 'hmm' }), chunk({ content: 'hi' }, 'stop'), usageChunk]);
    assert.deepEqual(parts, [
      { type: 'reasoning-delta', text: 'hmm' },
      { type: 'text-delta', text: 'hi' },
      { type: 'text-end', finishReason: 'stop' },
      { type: 'finish', finishReason: 'stop', usage: { inputTokens: 3, outputTokens: 4 } },
    ]);
  });

  it('says the text is complete at the finish-reason chunk, before the usage chunk is read', async () => {
    const read: string[] = [];
    async function* source(): AsyncGenerator<ChatCompletionChunk> {
      read.push('text');
      yield chunk({ content: 'done' });
      read.push('finish');
      yield chunk({}, 'length');
      read.push('usage');
      yield {
        id: 'c',
        object: 'chat.completion.chunk',
        created: 0,
        model: 'm',
        choices: [],
        usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
      } as ChatCompletionChunk;
    }
    const parts = fromOpenAIStream(source());
    assert.deepEqual((await parts.next()).value, { type: 'text-delta', text: 'done' });
    assert.deepEqual((await parts.next()).value, { type: 'text-end', finishReason: 'length' });
    assert.deepEqual(read, ['text', 'finish'], 'the usage chunk is not waited for');
    const rest: ModelStreamPart[] = [];
    for await (const part of parts) rest.push(part);
    assert.deepEqual(rest, [{ type: 'finish', finishReason: 'length', usage: { inputTokens: 1, outputTokens: 1 } }]);
  });

  it('ends the text once, even when a server repeats the finish reason', async () => {
    const parts = await run([chunk({ content: 'a' }, 'stop'), chunk({}, 'stop')]);
    assert.deepEqual(
      parts.map((part) => part.type),
      ['text-delta', 'text-end', 'finish'],
    );
  });

  it('survives garbled tool-call fields: a numeric name is dropped, object arguments become JSON, a missing index continues the call', async () => {
    const parts = await run([
      chunk({ tool_calls: [{ index: 0, id: 7, function: { name: 123, arguments: { path: 'a.txt' } } }] }),
      chunk({ tool_calls: [{ index: 1, id: 'b', function: { name: 'two', arguments: '{"x"' } }] }),
      chunk({ tool_calls: [{ function: { arguments: ':1}' } }] }),
      chunk({}, 'tool_calls'),
    ]);
    const calls = parts.flatMap((part) => (part.type === 'tool-call' ? [part.call] : []));
    assert.equal(calls.length, 2);
    assert.equal(calls[0]?.name, '');
    assert.match(calls[0]?.id ?? '', /^call_/);
    assert.equal(calls[0]?.arguments, '{"path":"a.txt"}');
    assert.deepEqual(calls[1], { id: 'b', name: 'two', arguments: '{"x":1}' });
  });

  it('maps finish reasons', () => {
    assert.equal(mapOpenAIFinish('length', false), 'length');
    assert.equal(mapOpenAIFinish('content_filter', false), 'content-filter');
    assert.equal(mapOpenAIFinish('stop', true), 'tool-calls');
    assert.equal(mapOpenAIFinish('weird', false), 'other');
  });
});
