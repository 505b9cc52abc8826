import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ProviderError } from '../../shared/errors.js';
import type { ToolCall } from '../messages.js';
import { createFakeTurnContext } from '../../../test/fakes/fake-turn-context.js';
import { callModel, normalizeCall, UNNAMED_TOOL } from './call-model.js';
import { isContextLengthError } from './call-with-compaction.js';

const request = { model: 'fake', messages: [], tools: [] };

describe('normalizeCall', () => {
  it('fills a missing id, trims the name and replaces a missing or non-string name', () => {
    const repaired = normalizeCall({ id: ' ', name: '  bash ', arguments: '{}' }, 3);
    assert.match(repaired.id, /^call_3_/);
    assert.equal(repaired.name, 'bash');
    assert.equal(normalizeCall({ id: 'a', name: '', arguments: '{}' }, 0).name, UNNAMED_TOOL);
    assert.equal(normalizeCall({ id: 'a', name: 42, arguments: '{}' } as unknown as ToolCall, 0).name, UNNAMED_TOOL);
  });

  it('turns non-string arguments into JSON text', () => {
    assert.equal(
      normalizeCall({ id: 'a', name: 'x', arguments: { path: 'a' } } as unknown as ToolCall, 0).arguments,
      '{"path":"a"}',
    );
    assert.equal(normalizeCall({ id: 'a', name: 'x', arguments: null } as unknown as ToolCall, 0).arguments, '');
  });
});

describe('callModel', () => {
  it('streams text, collects calls and ends with model-call-end', async () => {
    const ctx = createFakeTurnContext();
    ctx.provider.enqueue({
      parts: [
        { type: 'reasoning-delta', text: 'thinking' },
        { type: 'text-delta', text: 'Hi' },
        { type: 'tool-call', call: { id: 'c1', name: 'bash', arguments: '{}' } },
        { type: 'finish', finishReason: 'tool-calls', usage: { inputTokens: 3, outputTokens: 2 } },
      ],
    });
    const { message, finishReason } = await callModel(ctx, request, { text: '' });
    assert.equal(finishReason, 'tool-calls');
    assert.deepEqual(message, {
      role: 'assistant',
      content: 'Hi',
      toolCalls: [{ id: 'c1', name: 'bash', arguments: '{}' }],
      reasoning: 'thinking',
    });
    assert.deepEqual(
      ctx.host.events.map((event) => event.type),
      ['reasoning-delta', 'text-delta', 'model-call-end'],
    );
    assert.deepEqual(ctx.host.usage, [{ inputTokens: 3, outputTokens: 2 }]);
  });

  it('reports the end of the call when its finish arrives, not after the stream has closed, and only once', async () => {
    let close: () => void = () => undefined;
    const closed = new Promise<void>((resolve) => (close = resolve));
    const ctx = {
      ...createFakeTurnContext(),
      streamModel: async function* () {
        yield { type: 'text-delta', text: 'Done.' } as const;
        yield { type: 'finish', finishReason: 'stop' } as const;
        // The transport takes its time to close (the SDK's body ends, the watchdog stops).
        await closed;
      },
    };
    const call = callModel(ctx, request, { text: '' });
    for (let spins = 0; ctx.host.events.length < 2 && spins < 1000; spins++)
      await new Promise((resolve) => setImmediate(resolve));
    assert.deepEqual(
      ctx.host.events.map((event) => event.type),
      ['text-delta', 'model-call-end'],
      'the thread can show the whole answer now',
    );
    close();
    const { message } = await call;
    assert.equal(message.content, 'Done.');
    assert.deepEqual(
      ctx.host.events.map((event) => event.type),
      ['text-delta', 'model-call-end'],
    );
  });

  it('reports the end of the call at text-end, before the usage and the tool calls that follow it, and only once', async () => {
    let usageSent: () => void = () => undefined;
    const usage = new Promise<void>((resolve) => (usageSent = resolve));
    const ctx = {
      ...createFakeTurnContext(),
      streamModel: async function* () {
        yield { type: 'text-delta', text: 'Calling.' } as const;
        yield { type: 'text-end', finishReason: 'tool-calls' } as const;
        // The provider's usage chunk and the stream's end come later.
        await usage;
        yield { type: 'tool-call', call: { id: 'c1', name: 'bash', arguments: '{}' } } as const;
        yield { type: 'finish', finishReason: 'tool-calls', usage: { inputTokens: 5, outputTokens: 1 } } as const;
      },
    };
    const call = callModel(ctx, request, { text: '' });
    for (let spins = 0; ctx.host.events.length < 2 && spins < 1000; spins++)
      await new Promise((resolve) => setImmediate(resolve));
    assert.deepEqual(ctx.host.events, [
      { type: 'text-delta', text: 'Calling.' },
      { type: 'model-call-end', finishReason: 'tool-calls' },
    ]);
    usageSent();
    const { message, finishReason } = await call;
    assert.equal(finishReason, 'tool-calls');
    assert.deepEqual(message.toolCalls, [{ id: 'c1', name: 'bash', arguments: '{}' }]);
    assert.deepEqual(
      ctx.host.events.map((event) => event.type),
      ['text-delta', 'model-call-end'],
    );
    assert.deepEqual(ctx.host.usage, [{ inputTokens: 5, outputTokens: 1 }]);
  });

  it('keeps an answer whose text had ended when the stream then fails or is stopped; a call still owing tool calls fails', async () => {
    const endingWith = (reason: 'stop' | 'tool-calls', failure: () => Error, controller?: AbortController) => ({
      ...createFakeTurnContext(),
      ...(controller ? { signal: controller.signal } : {}),
      streamModel: async function* () {
        yield { type: 'text-delta', text: 'All of it.' } as const;
        yield { type: 'text-end', finishReason: reason } as const;
        controller?.abort(new Error('shutting down'));
        throw failure();
      },
    });
    const dropped = () => new ProviderError('connection reset', { retryable: true });
    const kept = await callModel(endingWith('stop', dropped), request, { text: '' });
    assert.deepEqual(kept, {
      message: { role: 'assistant', content: 'All of it.' },
      finishReason: 'stop',
      committed: true,
    });
    const stopped = await callModel(
      endingWith('stop', () => new Error('aborted'), new AbortController()),
      request,
      { text: '' },
    );
    assert.equal(stopped.message.content, 'All of it.', 'a stop after the answer was complete does not cut it');
    await assert.rejects(callModel(endingWith('tool-calls', dropped), request, { text: '' }), /connection reset/);
  });

  it('commits a complete answer at its stop reason, before the final edit starts, and only an answer', async () => {
    const ctx = createFakeTurnContext();
    const committedAtEnd: number[] = [];
    const emit = ctx.host.emit;
    ctx.host.emit = (event) => {
      if (event.type === 'model-call-end') committedAtEnd.push(ctx.host.answers.length);
      emit(event);
    };
    ctx.provider.enqueue({
      parts: [
        { type: 'text-delta', text: 'Done.' },
        { type: 'text-end', finishReason: 'stop' },
        { type: 'finish', finishReason: 'stop' },
      ],
    });
    const result = await callModel(ctx, request, { text: '' });
    assert.equal(result.committed, true);
    assert.equal(result.message, ctx.host.answers[0], 'the committed message is the one the turn keeps');
    assert.deepEqual(committedAtEnd, [1], 'stored before model-call-end (which starts the final edit)');
    assert.deepEqual(
      ctx.host.events.find((event) => event.type === 'model-call-end'),
      { type: 'model-call-end', finishReason: 'stop', answered: true },
    );
    ctx.provider.enqueue({
      parts: [
        { type: 'text-delta', text: 'Let me look.' },
        { type: 'text-end', finishReason: 'tool-calls' },
        { type: 'tool-call', call: { id: 'c1', name: 'bash', arguments: '{}' } },
        { type: 'finish', finishReason: 'tool-calls' },
      ],
    });
    const tools = await callModel(ctx, request, { text: '' });
    assert.equal(tools.committed, false, 'a call owing tool calls is not an answer');
    assert.equal(ctx.host.answers.length, 1);
  });

  it('ends the call with a storage failure when the answer cannot be committed, before anything shows it as final', async () => {
    const ctx = createFakeTurnContext();
    ctx.host.answered = () => Promise.reject(new Error('disk full'));
    ctx.provider.enqueue({
      parts: [
        { type: 'text-delta', text: 'Done.' },
        { type: 'text-end', finishReason: 'stop' },
        { type: 'finish', finishReason: 'stop' },
      ],
    });
    await assert.rejects(callModel(ctx, request, { text: '' }), /storing the answer failed/);
    assert.equal(
      ctx.host.events.some((event) => event.type === 'model-call-end' && event.answered === true),
      false,
    );
  });

  it('still reports the end of a call whose stream ended without a finish', async () => {
    const ctx = createFakeTurnContext();
    ctx.provider.enqueue({ parts: [{ type: 'text-delta', text: 'cut' }] });
    await callModel(ctx, request, { text: '' });
    assert.deepEqual(
      ctx.host.events.map((event) => event.type),
      ['text-delta', 'model-call-end'],
    );
  });

  it('drops partial tool calls of a truncated (length) response', async () => {
    const ctx = createFakeTurnContext();
    ctx.provider.enqueue({
      parts: [
        { type: 'tool-call', call: { id: 'c1', name: 'bash', arguments: '{"comm' } },
        { type: 'finish', finishReason: 'length' },
      ],
    });
    const { message } = await callModel(ctx, request, { text: '' });
    assert.equal(message.toolCalls, undefined);
  });
});

describe('isContextLengthError', () => {
  it('trusts the providers flag, 413 and context-ish types, and nothing else', () => {
    assert.equal(isContextLengthError(new ProviderError('x', { status: 400, data: { contextLength: true } })), true);
    assert.equal(isContextLengthError(new ProviderError('x', { status: 413 })), true);
    assert.equal(
      isContextLengthError(new ProviderError('x', { status: 400, data: { type: 'exceed_context_size_error' } })),
      true,
    );
    assert.equal(
      isContextLengthError(new ProviderError('openai: HTTP 400 bad request (invalid_request_error)', { status: 400 })),
      false,
    );
    assert.equal(isContextLengthError(new ProviderError('x', { status: 429 })), false);
    assert.equal(isContextLengthError(new Error('maximum context length')), false);
  });
});
