import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { AssistantMessage, ToolCall } from '../messages.js';
import { createFakeTurnContext, FakeToolSource } from '../../../test/fakes/fake-turn-context.js';
import { UNNAMED_TOOL } from './call-model.js';
import {
  MAX_TOOL_ARGUMENT_CHARS,
  prepareToolCalls,
  restorePreparedCalls,
  withStorableArguments,
} from './prepare-tool-calls.js';

function call(name: string, args: string, id = `call_${name}`): ToolCall {
  return { id, name, arguments: args };
}

function setup(): { ctx: ReturnType<typeof createFakeTurnContext>; tools: FakeToolSource } {
  const tools = new FakeToolSource([
    { name: 'bash', primaryKey: 'command' },
    { name: 'read_file', primaryKey: 'path', prepare: () => ({ needsApproval: false }) },
    {
      name: 'write_file',
      prepare: (args) => ({ approvalLabel: args['path'] === 'exists.txt' ? 'overwrite_file' : 'write_file' }),
    },
    { name: 'broken', prepare: () => ({ error: 'Error: path is outside the workspace' }) },
  ]);
  return { ctx: createFakeTurnContext({ toolSources: [tools] }), tools };
}

describe('prepareToolCalls', () => {
  it('marks calls that need approval as ask and the others as run, keeping the order', async () => {
    const { ctx } = setup();
    const batch = await prepareToolCalls(ctx, [
      call('bash', '{"command":"ls"}'),
      call('read_file', '{"path":"a.txt"}'),
    ]);
    assert.deepEqual(
      batch.map((entry) => [entry.callId, entry.status, entry.item.needsApproval]),
      [
        ['call_bash', 'ask', true],
        ['call_read_file', 'run', false],
      ],
    );
    assert.deepEqual(batch[0]?.args, { command: 'ls' });
    assert.equal(batch[0]?.item.header, '⚙ bash');
  });

  it('answers an unknown tool with an error the model reads, without asking', async () => {
    const { ctx, tools } = setup();
    const [entry] = await prepareToolCalls(ctx, [call('no_such_tool', '{}')]);
    assert.deepEqual(entry?.status, {
      output: 'Error: unknown tool "no_such_tool". Use one of the tools you were given.',
      isError: true,
    });
    assert.equal(entry?.item.needsApproval, false);
    assert.ok(entry?.item.error);
    assert.equal(tools.prepared.length, 0);
  });

  it('repairs broken JSON before preparing', async () => {
    const { ctx, tools } = setup();
    const [entry] = await prepareToolCalls(ctx, [call('bash', '{"command": "echo hi",')]);
    assert.equal(entry?.status, 'ask');
    assert.deepEqual(tools.prepared[0], { name: 'bash', args: { command: 'echo hi' } });
  });

  it('puts a bare string into the primary key', async () => {
    const { ctx, tools } = setup();
    const [entry] = await prepareToolCalls(ctx, [call('read_file', 'notes/todo.md')]);
    assert.equal(entry?.status, 'run');
    assert.deepEqual(tools.prepared[0]?.args, { path: 'notes/todo.md' });
  });

  it('reports arguments that cannot be parsed, without preparing the call', async () => {
    const { ctx, tools } = setup();
    const [entry] = await prepareToolCalls(ctx, [call('write_file', '[1, 2]')]);
    assert.equal(typeof entry?.status, 'object');
    assert.match(entry?.item.error ?? '', /JSON parse error: arguments must be a JSON object/);
    assert.match(entry?.item.header ?? '', /^✗ write_file/);
    assert.equal(tools.prepared.length, 0);
  });

  it('uses the approval label of the tool, and the tool error as the result', async () => {
    const { ctx } = setup();
    const batch = await prepareToolCalls(ctx, [call('write_file', '{"path":"exists.txt"}'), call('broken', '{}')]);
    assert.equal(batch[0]?.item.approvalLabel, 'overwrite_file');
    assert.deepEqual(batch[1]?.status, { output: 'Error: path is outside the workspace', isError: true });
    assert.equal(batch[1]?.item.needsApproval, false);
  });

  it('turns a throwing prepare into an error result', async () => {
    const tools = new FakeToolSource([{ name: 'bash' }]);
    tools.prepare = () => Promise.reject(new Error('boom'));
    const ctx = createFakeTurnContext({ toolSources: [tools] });
    const [entry] = await prepareToolCalls(ctx, [call('bash', '{}')]);
    assert.deepEqual(entry?.status, { output: 'Error: could not prepare bash: boom', isError: true });
  });

  it('rejects a nameless call and oversized arguments before parsing them', async () => {
    const { ctx, tools } = setup();
    const huge = JSON.stringify({ command: 'x'.repeat(MAX_TOOL_ARGUMENT_CHARS) });
    const batch = await prepareToolCalls(ctx, [call(UNNAMED_TOOL, '{}'), call('bash', huge)]);
    assert.match(batch[0]?.item.error ?? '', /no tool name/);
    assert.match(batch[1]?.item.error ?? '', /too large/);
    assert.equal(batch[1]?.arguments, '{}');
    assert.equal(tools.prepared.length, 0);
  });
});

describe('withStorableArguments', () => {
  it('replaces only oversized arguments and leaves small messages untouched', () => {
    const small: AssistantMessage = { role: 'assistant', content: '', toolCalls: [call('bash', '{"command":"ls"}')] };
    assert.equal(withStorableArguments(small), small);
    const big: AssistantMessage = {
      role: 'assistant',
      content: 'x',
      toolCalls: [call('bash', 'y'.repeat(MAX_TOOL_ARGUMENT_CHARS + 1)), call('read_file', '{}')],
    };
    const stored = withStorableArguments(big);
    assert.deepEqual(
      stored.toolCalls?.map((entry) => entry.arguments),
      ['{}', '{}'],
    );
    assert.equal(big.toolCalls?.[0]?.arguments.length, MAX_TOOL_ARGUMENT_CHARS + 1);
  });
});

describe('restorePreparedCalls', () => {
  it('finds the source again for stored calls', async () => {
    const { ctx, tools } = setup();
    const [entry] = await prepareToolCalls(ctx, [call('bash', '{"command":"ls"}')]);
    const { source: _source, ...stored } = entry!;
    const [restored] = restorePreparedCalls(ctx, [JSON.parse(JSON.stringify(stored))]);
    assert.equal(restored?.source, tools);
    assert.equal(restored?.status, 'ask');
  });
});
