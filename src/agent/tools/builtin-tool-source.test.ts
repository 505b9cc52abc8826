import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createTempWorkspace, createToolContext } from '../../../test/helpers/tool-context.js';
import { BuiltinToolSource } from './builtin-tool-source.js';
import { createBuiltinToolSource } from './index.js';
import { loadToolDefinitions } from './load-tool-definitions.js';
import type { ToolHandler } from './tool.js';

describe('BuiltinToolSource', () => {
  let workspace: { directory: string; remove(): Promise<void> };
  before(async () => {
    workspace = await createTempWorkspace();
  });
  after(async () => {
    await workspace.remove();
  });

  it('lists only the tools that have a handler', async () => {
    const source = await createBuiltinToolSource();
    const names = (await source.listTools()).map((definition) => definition.name);
    assert.deepEqual(names, [
      'bash',
      'edit_file',
      'man',
      'math',
      'memory',
      'notify',
      'plan',
      'read_file',
      'recall',
      'search',
      'task',
      'watch',
      'web_fetch',
      'web_search',
      'write_file',
    ]);
    assert.equal(source.hasTool('bash'), true);
    assert.equal(source.hasTool('read_resource'), false);
  });

  it('turns schema violations into a ✗ preparation that needs no approval', async () => {
    const source = await createBuiltinToolSource();
    const context = createToolContext(workspace.directory);
    const missing = await source.prepare('bash', {}, context);
    assert.equal(missing.error, "Error: invalid arguments for bash: missing required argument 'command'");
    assert.ok(missing.header.startsWith('✗ bash:'));
    assert.equal(missing.needsApproval, false);
    const badEnum = await source.prepare('web_search', { query: 'x', topic: 7 }, context);
    assert.match(String(badEnum.error), /'topic' must be one of "general", "news", "finance"/);
    const unknown = await source.prepare('read_resource', { uri: 'file:///x' }, context);
    assert.equal(unknown.error, 'Unknown tool: read_resource');
    const noStorage = await source.prepare('memory', { action: 'list' }, context);
    assert.equal(noStorage.error, 'Error: memory is not available: no storage is configured');
  });

  it('coerces numeric strings before the handler runs', async () => {
    const source = await createBuiltinToolSource();
    const context = createToolContext(workspace.directory);
    const prepared = await source.prepare('read_file', { path: 'x.txt', offset: '2', limit: '3' }, context);
    assert.equal(prepared.header, '⚙ read_file: x.txt (lines 2-4)');
  });

  it('truncates long output of the tools that the reference truncates', async () => {
    const source = await createBuiltinToolSource();
    const result = await source.callTool(
      'bash',
      { command: 'head -c 5000 /dev/zero | tr "\\0" a' },
      createToolContext(workspace.directory, { outputLimit: 1000 }),
    );
    assert.equal(result.isError, false);
    assert.match(String(result.output), /\[4000 chars truncated — output exceeded 1000 char limit\]/);
  });

  it('times out a handler that ignores its signal, and turns a throw into an error result', async () => {
    const definitions = (await loadToolDefinitions()).all;
    const hanging: ToolHandler = {
      name: 'man',
      prepare: () => ({ header: 'x', preview: '', needsApproval: false, approvalLabel: 'man' }),
      execute: () => new Promise(() => undefined),
    };
    const throwing: ToolHandler = {
      ...hanging,
      name: 'search',
      execute: () => Promise.reject(new Error('disk on fire')),
    };
    const source = new BuiltinToolSource(definitions, [hanging, throwing]);
    const timedOut = await source.callTool(
      'man',
      { page: 'ls' },
      createToolContext(workspace.directory, { timeoutMs: 200 }),
    );
    assert.deepEqual(timedOut, { output: 'Error: man timed out after 0.2s', isError: true });
    const failed = await source.callTool('search', { query: 'x' }, createToolContext(workspace.directory));
    assert.deepEqual(failed, { output: 'Error: search failed: disk on fire', isError: true });
  });

  it('refuses, without throwing, the calls of a tool whose definition is no JSON Schema', async () => {
    const broken = {
      name: 'man',
      description: 'a definition whose parameters are not a schema',
      parameters: { type: 'object', properties: { page: { type: 'strin' } } },
      agent: false,
      taskAgent: false,
      autoApprove: false,
    };
    const handler: ToolHandler = {
      name: 'man',
      prepare: () => ({ header: 'x', preview: '', needsApproval: false, approvalLabel: 'man' }),
      execute: () => Promise.resolve({ output: 'ran', isError: false }),
    };
    const source = new BuiltinToolSource([broken], [handler]);
    const context = createToolContext(workspace.directory);
    const prepared = await source.prepare('man', { page: 'ls' }, context);
    assert.match(prepared.error ?? '', /the definition of man is not a valid JSON Schema/);
    const called = await source.callTool('man', { page: 'ls' }, context);
    assert.equal(called.isError, true);
    assert.match(String(called.output), /not a valid JSON Schema/);
  });

  it('propagates cancellation as an abort', async () => {
    const source = await createBuiltinToolSource();
    const controller = new AbortController();
    const context = createToolContext(workspace.directory, {
      signal: controller.signal,
      onOutput: () => controller.abort(),
    });
    await assert.rejects(source.callTool('bash', { command: 'echo go; sleep 60' }, context), { name: 'AbortError' });
  });
});
