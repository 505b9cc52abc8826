import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Ajv } from 'ajv';
import { ConfigError } from '../../shared/errors.js';
import { READ_RESOURCE, USE_PROMPT } from '../mcp/mcp-tool-source.js';
import { createBuiltinHandlers } from './index.js';
import { DEFAULT_TOOLS_DIRECTORY, loadToolDefinitions, toToolSchema } from './load-tool-definitions.js';
import { packageRoot } from '../../shared/package-root.js';

// The sources (the test may run as a compiled copy, scripts/run-tests.mjs).
const BUILTIN_DIRECTORY = path.join(packageRoot(import.meta.url), 'src', 'agent', 'tools', 'builtin');

describe('loadToolDefinitions', () => {
  it('loads the 17 seed tools sorted by name, each a valid object schema', async () => {
    const set = await loadToolDefinitions();
    assert.deepEqual(
      set.all.map((definition) => definition.name),
      [
        'bash',
        'edit_file',
        'man',
        'math',
        'memory',
        'notify',
        'plan',
        'read_file',
        'read_resource',
        'recall',
        'search',
        'task',
        'use_prompt',
        'watch',
        'web_fetch',
        'web_search',
        'write_file',
      ],
    );
    for (const definition of set.all) {
      assert.ok(definition.description.length > 40, `${definition.name} has a real description`);
      assert.equal(definition.parameters['type'], 'object');
      const properties = Object.keys(definition.parameters['properties'] as object);
      for (const required of (definition.parameters['required'] as string[] | undefined) ?? [])
        assert.ok(properties.includes(required));
    }
  });

  it("compiles every shipped tool's parameters as a strict JSON Schema (checked here, not at each start)", async () => {
    const strict = new Ajv({ strict: true, allErrors: true });
    for (const definition of (await loadToolDefinitions()).all)
      assert.doesNotThrow(() => strict.compile(definition.parameters), `tools/${definition.name}.json`);
    assert.throws(() => strict.compile({ type: 'object', properties: { a: { type: 'strin' } } }), /schema is invalid/);
  });

  it('derives the sub-agent sets, auto-approved names and primary keys of the reference', async () => {
    const set = await loadToolDefinitions();
    assert.deepEqual(
      set.agent.map((d) => d.name),
      ['man', 'math', 'notify', 'read_file', 'read_resource', 'search', 'use_prompt', 'web_fetch', 'web_search'],
    );
    assert.deepEqual(
      set.taskAgent.map((d) => d.name).sort(),
      [...set.agent.map((d) => d.name), 'bash', 'edit_file', 'write_file'].sort(),
    );
    assert.deepEqual([...set.autoApproved].sort(), [
      'man',
      'math',
      'notify',
      'read_file',
      'search',
      'web_fetch',
      'web_search',
    ]);
    assert.deepEqual(Object.fromEntries(set.primaryKeys), {
      bash: 'command',
      edit_file: 'old_string',
      man: 'page',
      math: 'code',
      memory: 'name',
      notify: 'message',
      plan: 'prompt',
      read_file: 'path',
      read_resource: 'uri',
      recall: 'query',
      search: 'query',
      task: 'prompt',
      use_prompt: 'name',
      watch: 'command',
      web_fetch: 'url',
      web_search: 'query',
      write_file: 'content',
    });
  });

  it('strips the metadata keys from the model-facing schema', async () => {
    const set = await loadToolDefinitions();
    const bash = set.all.find((definition) => definition.name === 'bash');
    assert.ok(bash);
    assert.deepEqual(Object.keys(toToolSchema(bash)).sort(), ['description', 'name', 'parameters']);
  });

  it('has a handler for every tool file and a tool file for every handler, registered under its JSON name', async () => {
    const files = (await readdir(BUILTIN_DIRECTORY)).filter(
      (file) => file.endsWith('.ts') && !file.endsWith('.test.ts'),
    );
    const handlerFiles = files.map((file) => file.replace(/\.ts$/, '')).sort();
    const jsonNames = (await readdir(DEFAULT_TOOLS_DIRECTORY))
      .filter((file) => file.endsWith('.json'))
      .map((file) => file.replace(/\.json$/, ''))
      .sort();
    const registered = [...createBuiltinHandlers().keys()].sort();
    // Handler → tool file: nothing is registered that the model cannot be offered.
    for (const name of registered) assert.ok(jsonNames.includes(name), `handler ${name} has tools/${name}.json`);
    for (const name of handlerFiles) assert.ok(jsonNames.includes(name), `builtin/${name}.ts has tools/${name}.json`);
    assert.deepEqual(registered, handlerFiles, 'every builtin/<name>.ts is registered, and only those');
    // Tool file → handler: a tool without a handler would stay hidden from the model.
    const servedElsewhere = [READ_RESOURCE, USE_PROMPT]; // by the MCP tool source (src/agent/mcp/mcp-tool-source.ts)
    const missing = jsonNames.filter((name) => !registered.includes(name) && !servedElsewhere.includes(name));
    assert.deepEqual(missing, [], 'tool files without a handler');
  });

  it('fails loudly, naming the file, for a malformed definition', async () => {
    const directory = await mkdtemp(path.join(os.tmpdir(), 'tooldefs-'));
    try {
      await writeFile(path.join(directory, 'broken.json'), '{"name": "broken", "description": "x"}');
      await assert.rejects(
        loadToolDefinitions({ directory }),
        (error: unknown) => error instanceof ConfigError && error.message.includes('tools/broken.json'),
      );
      await writeFile(path.join(directory, 'broken.json'), '{not json');
      await assert.rejects(loadToolDefinitions({ directory }), /tools\/broken\.json: not valid JSON/);
    } finally {
      await rm(directory, { recursive: true, force: true });
    }
  });
});
