import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { contentText, type Message } from '../messages.js';
import { createFakeTurnContext } from '../../../test/fakes/fake-turn-context.js';
import { textParts } from '../../../test/fakes/fake-model-provider.js';
import { chooseCut, compactHistory, formatForSummary } from './compact-history.js';

const user = (content: string): Message => ({ role: 'user', content });
const answer = (content: string): Message => ({ role: 'assistant', content });

function toolTurn(id: string, output: string): Message[] {
  return [
    { role: 'assistant', content: '', toolCalls: [{ id, name: 'bash', arguments: '{"command":"ls"}' }] },
    { role: 'tool', toolCallId: id, name: 'bash', content: output },
  ];
}

describe('chooseCut', () => {
  it('keeps the newest user message and everything after it when it fits', () => {
    const history = [user('one'), answer('a1'), user('two'), answer('a2'), user('three'), answer('a3')];
    assert.equal(chooseCut(history, 1000), 2);
    assert.equal(chooseCut(history, 3), 4);
  });

  it('never starts the kept tail at a tool result', () => {
    const history = [user('one'), ...toolTurn('c1', 'x'.repeat(4000)), answer('done')];
    const cut = chooseCut(history, 5);
    assert.ok(cut !== undefined);
    assert.notEqual(history[cut]?.role, 'tool');
  });

  it('gives no cut for a history of one message', () => {
    assert.equal(chooseCut([user('only')], 1000), undefined);
  });
});

describe('formatForSummary', () => {
  it('labels roles and tools, lists calls and skips empty and system messages', () => {
    const text = formatForSummary(
      [{ role: 'system', content: 'sys' }, user('hello'), ...toolTurn('c1', 'file-a'), answer('')],
      10_000,
    );
    assert.equal(text, 'USER: hello\n\nASSISTANT: \n[Called: bash({"command":"ls"})]\n\nTOOL[bash]: file-a');
  });

  it('clips long contents to head and tail, and the whole text to the budget', () => {
    const long = `${'h'.repeat(1500)}${'t'.repeat(1500)}`;
    const text = formatForSummary([user(long)], 10_000);
    assert.match(text, /^USER: h{1000}\n\.\.\.\[truncated\]\.\.\.\nt{500}$/);
    const budgeted = formatForSummary([user('a'.repeat(900)), user('b'.repeat(900))], 400);
    assert.ok(budgeted.length <= 400 + 30);
    assert.match(budgeted, /^USER: a+\n\.\.\.\[truncated\]\.\.\.\nb+$/);
  });
});

describe('compactHistory', () => {
  it('replaces older messages with the summary, keeps the tail, persists and clears the read-file set', async () => {
    const ctx = createFakeTurnContext({
      contextWindow: 40,
      history: [user('first'), answer('x'.repeat(400)), user('second'), answer('y')],
    });
    ctx.readFiles.add('/tmp/a.txt');
    ctx.provider.enqueue({ parts: textParts('<think>hmm</think>THE SUMMARY') });
    assert.equal(await compactHistory(ctx), true);
    assert.deepEqual(
      ctx.history.map((message) => contentText(message.content)),
      ['[Conversation summary]', 'THE SUMMARY', 'second', 'y'],
    );
    assert.deepEqual(ctx.host.replaced.at(-1), ctx.history);
    assert.equal(ctx.readFiles.size, 0);
    const request = ctx.provider.requests[0];
    assert.equal(request?.tools.length, 0);
    assert.match(contentText(request?.messages.at(-1)?.content ?? ''), /USER: first/);
    assert.doesNotMatch(contentText(request?.messages.at(-1)?.content ?? ''), /second/);
  });

  it('adds a Continue section quoting the last request when no user message is kept', async () => {
    const history = [user('please refactor the parser'), ...toolTurn('c1', 'z'.repeat(4000)), answer('w'.repeat(400))];
    const ctx = createFakeTurnContext({ contextWindow: 40, history });
    ctx.provider.enqueue({ parts: textParts('NOTES') });
    assert.equal(await compactHistory(ctx), true);
    const summary = contentText(ctx.history[1]?.content ?? '');
    assert.match(summary, /^NOTES\n\n## Continue\n/);
    assert.match(summary, /please refactor the parser/);
    assert.notEqual(ctx.history[2]?.role, 'tool');
  });

  it('leaves the history untouched when the summary call fails or returns nothing', async () => {
    const history = [user('first'), answer('x'.repeat(400)), user('second')];
    const ctx = createFakeTurnContext({ contextWindow: 40, history: [...history] });
    ctx.provider.enqueue({ error: new Error('model down') }, { parts: textParts('<think>only thinking') });
    assert.equal(await compactHistory(ctx), false);
    assert.equal(await compactHistory(ctx), false);
    assert.deepEqual(ctx.history, history);
    assert.equal(ctx.host.replaced.length, 0);
  });

  it('does nothing for a single message', async () => {
    const ctx = createFakeTurnContext({ history: [user('only')] });
    assert.equal(await compactHistory(ctx), false);
    assert.equal(ctx.provider.requests.length, 0);
  });
});
