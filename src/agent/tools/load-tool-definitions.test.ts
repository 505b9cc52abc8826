import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ConfigError } from '../../shared/errors.js';
import { createBuiltinHandlers } from './index.js';
import { DEFAULT_TOOLS_DIRECTORY, loadToolDefinitions, toToolSchema } from './load-tool-definitions.js';

const BUILTIN_DIRECTORY = fileURLToPath(new URL('./builtin/', import.meta.url));

describe('loadToolDefinitions', () => {
  it('loads the 17 seed tools sorted by name, each a valid object schema', async () => {
    const set = await loadToolDefinitions();
    assert.deepEqual(
      set.all.map((definition) => definition.name),
      ['bash', 'edit_file', 'man', 'math', 'memory', 'notify', 'plan', 'read_file', 'read_resource', 'recall', 'search', 'task', 'use_prompt', 'watch', 'web_fetch', 'web_search', 'write_file'],
    );
    for (const definition of set.all) {
      assert.ok(definition.description.length > 40, `${definition.name} has a real description`);
      assert.equal(definition.parameters['type'], 'object');
      const properties = Object.keys(definition.parameters['properties'] as object);
      for (const required of (definition.parameters['required'] as string[] | undefined) ?? []) assert.ok(properties.includes(required));
    }
  });

  it('derives the sub-agent sets, auto-approved names and primary keys of the reference', async () => {
    const set = await loadToolDefinitions();
    assert.deepEqual(set.agent.map((d) => d.name), ['man', 'math', 'notify', 'read_file', 'read_resource', 'search', 'use_prompt', 'web_fetch', 'web_search']);
    assert.deepEqual(set.taskAgent.map((d) => d.name).sort(), [...set.agent.map((d) => d.name), 'bash', 'edit_file', 'write_file'].sort());
    assert.deepEqual([...set.autoApproved].sort(), ['man', 'math', 'notify', 'read_file', 'search', 'web_fetch', 'web_search']);
    assert.deepEqual(Object.fromEntries(set.primaryKeys), {
      bash: 'command', edit_file: 'old_string', man: 'page', math: 'code', memory: 'name', notify: 'message',
      plan: 'prompt', read_file: 'path', read_resource: 'uri', recall: 'query', search: 'query', task: 'prompt', use_prompt: 'name', watch: 'command',
      web_fetch: 'url', web_search: 'query', write_file: 'content',
    });
  });

  it('strips the metadata keys from the model-facing schema', async () => {
    const set = await loadToolDefinitions();
    const bash = set.all.find((definition) => definition.name === 'bash');
    assert.ok(bash);
    assert.deepEqual(Object.keys(toToolSchema(bash)).sort(), ['description', 'name', 'parameters']);
  });

  it('has one builtin/<tool_name>.ts handler file per implemented tool, each registered under its JSON name', async () => {
    const files = (await readdir(BUILTIN_DIRECTORY)).filter((file) => file.endsWith('.ts') && !file.endsWith('.test.ts'));
    const handlerNames = files.map((file) => file.replace(/\.ts$/, '')).sort();
    const jsonNames = new Set((await readdir(DEFAULT_TOOLS_DIRECTORY)).map((file) => file.replace(/\.json$/, '')));
    for (const name of handlerNames) assert.ok(jsonNames.has(name), `builtin/${name}.ts has tools/${name}.json`);
    assert.deepEqual([...createBuiltinHandlers().keys()].sort(), handlerNames);
  });

  it('fails loudly, naming the file, for a malformed definition', async () => {
    const directory = await mkdtemp(path.join(os.tmpdir(), 'tooldefs-'));
    try {
      await writeFile(path.join(directory, 'broken.json'), JSON.stringify({ name: 'broken', description: 'x', parameters: { type: 'object', properties: { a: { type: 'strin' } } }, agent: false, task_agent: false, auto_approve: false }));
      await assert.rejects(loadToolDefinitions({ directory }), (error: unknown) => error instanceof ConfigError && error.message.includes('tools/broken.json'));
      await writeFile(path.join(directory, 'broken.json'), '{"name": "broken", "description": "x"}');
      await assert.rejects(loadToolDefinitions({ directory }), (error: unknown) => error instanceof ConfigError && error.message.includes('tools/broken.json'));
      await writeFile(path.join(directory, 'broken.json'), '{not json');
      await assert.rejects(loadToolDefinitions({ directory }), /tools\/broken\.json: not valid JSON/);
    } finally {
      await rm(directory, { recursive: true, force: true });
    }
  });
});
