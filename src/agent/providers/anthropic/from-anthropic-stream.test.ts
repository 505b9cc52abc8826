import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { RawMessageStreamEvent } from '@anthropic-ai/sdk/resources/messages';
import { ProviderError } from '../../../shared/errors.js';
import type { ModelStreamPart } from '../model-provider.js';
import { fromAnthropicStream, mapAnthropicStop } from './from-anthropic-stream.js';

const start = {
  type: 'message_start',
  message: { id: 'm', type: 'message', role: 'assistant', model: 'c', content: [], stop_reason: null, stop_sequence: null,
    usage: { input_tokens: 10, output_tokens: 1, cache_creation_input_tokens: 5, cache_read_input_tokens: 2 } },
};

async function run(events: unknown[]): Promise<ModelStreamPart[]> {
  async function* source(): AsyncGenerator<RawMessageStreamEvent> {
    yield* events as RawMessageStreamEvent[];
  }
  const out: ModelStreamPart[] = [];
  for await (const part of fromAnthropicStream(source())) out.push(part);
  return out;
}

describe('fromAnthropicStream', () => {
  it('emits a tool call on block stop and keeps thinking with its signature as providerData', async () => {
    const parts = await run([
      start,
      { type: 'content_block_start', index: 0, content_block: { type: 'thinking', thinking: '', signature: '' } },
      { type: 'content_block_delta', index: 0, delta: { type: 'thinking_delta', thinking: 'plan' } },
      { type: 'content_block_delta', index: 0, delta: { type: 'signature_delta', signature: 'SIG' } },
      { type: 'content_block_stop', index: 0 },
      { type: 'content_block_start', index: 1, content_block: { type: 'tool_use', id: 't1', name: 'f', input: {} } },
      { type: 'content_block_delta', index: 1, delta: { type: 'input_json_delta', partial_json: '{"a":' } },
      { type: 'content_block_delta', index: 1, delta: { type: 'input_json_delta', partial_json: '1}' } },
      { type: 'content_block_stop', index: 1 },
      { type: 'message_delta', delta: { stop_reason: 'tool_use', stop_sequence: null }, usage: { output_tokens: 9 } },
      { type: 'message_stop' },
    ]);
    assert.deepEqual(parts, [
      { type: 'reasoning-delta', text: 'plan' },
      { type: 'tool-call', call: { id: 't1', name: 'f', arguments: '{"a":1}' } },
      {
        type: 'text-end', finishReason: 'tool-calls',
        providerData: [
          { type: 'thinking', thinking: 'plan', signature: 'SIG' },
          { type: 'tool_use', id: 't1', name: 'f', input: { a: 1 } },
        ],
      },
      {
        type: 'finish', finishReason: 'tool-calls', usage: { inputTokens: 17, outputTokens: 9, cachedTokens: 2 },
        providerData: [
          { type: 'thinking', thinking: 'plan', signature: 'SIG' },
          { type: 'tool_use', id: 't1', name: 'f', input: { a: 1 } },
        ],
      },
    ]);
  });

  it('keeps malformed tool JSON raw in the call and as {} in the raw block', async () => {
    const parts = await run([
      start,
      { type: 'content_block_start', index: 0, content_block: { type: 'redacted_thinking', data: 'xyz' } },
      { type: 'content_block_stop', index: 0 },
      { type: 'content_block_start', index: 1, content_block: { type: 'tool_use', id: 't', name: 'f', input: {} } },
      { type: 'content_block_delta', index: 1, delta: { type: 'input_json_delta', partial_json: '{"a":' } },
      { type: 'content_block_stop', index: 1 },
      { type: 'message_delta', delta: { stop_reason: 'tool_use', stop_sequence: null }, usage: { output_tokens: 2 } },
      { type: 'message_stop' },
    ]);
    assert.deepEqual(parts[0], { type: 'tool-call', call: { id: 't', name: 'f', arguments: '{"a":' } });
    assert.deepEqual(parts[1], {
      type: 'text-end', finishReason: 'tool-calls',
      providerData: [{ type: 'redacted_thinking', data: 'xyz' }, { type: 'tool_use', id: 't', name: 'f', input: {} }],
    });
    const finish = parts[2];
    assert.ok(finish?.type === 'finish');
    assert.deepEqual(finish.providerData, [{ type: 'redacted_thinking', data: 'xyz' }, { type: 'tool_use', id: 't', name: 'f', input: {} }]);
  });

  it('fails with a retryable error when the stream ends before message_stop', async () => {
    await assert.rejects(run([start]), (error: unknown) => error instanceof ProviderError && error.retryable);
  });

  it('maps stop reasons', () => {
    assert.equal(mapAnthropicStop('end_turn'), 'stop');
    assert.equal(mapAnthropicStop('pause_turn'), 'stop');
    assert.equal(mapAnthropicStop('max_tokens'), 'length');
    assert.equal(mapAnthropicStop('refusal'), 'content-filter');
  });
});
