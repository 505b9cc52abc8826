/** Preparation (approval labels, validation) and result formatting of MCP tool calls. */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { buildMcpCatalog } from './mcp-catalog.js';
import { formatPromptMessages, formatToolResult } from './mcp-result-format.js';
import { DEFAULT_BUILTIN_SCHEMAS, catalogHasTool, listMcpToolDefinitions, prepareMcpCall } from './mcp-tool-source.js';

const catalog = buildMcpCatalog(
  new Map([
    [
      'test',
      {
        tools: [{ name: 'search', description: 'Search', inputSchema: { type: 'object', properties: {} } }],
        resources: [{ uri: 'file:///docs/readme.md', name: '', description: '', mimeType: '' }],
        templates: [],
        prompts: [{ name: 'greet', description: '', arguments: [] }],
      },
    ],
  ]),
);

describe('MCP tool source', () => {
  it('prepares MCP tool calls that need approval, labelled with the prefixed name', () => {
    const prepared = prepareMcpCall(catalog, 'mcp__test__search', { query: 'hello', long: 'x'.repeat(300) });
    assert.equal(prepared.needsApproval, true);
    assert.equal(prepared.approvalLabel, 'mcp__test__search');
    assert.match(prepared.header, /mcp:test\/search/);
    assert.match(prepared.preview, /^ {4}query: hello\n {4}long: x{200}\.\.\.$/);
    assert.equal(prepareMcpCall(catalog, 'mcp__test__search', {}).preview, '    (no arguments)');
  });

  it('labels resource reads with the normalized URI so ".." cannot dodge a policy', () => {
    const prepared = prepareMcpCall(catalog, 'read_resource', { uri: 'file:///docs/../etc/passwd' });
    assert.equal(prepared.approvalLabel, 'mcp_resource__file:///etc/passwd');
    assert.match(prepareMcpCall(catalog, 'read_resource', {}).error ?? '', /uri/);
  });

  it('validates use_prompt names and arguments', () => {
    assert.equal(prepareMcpCall(catalog, 'use_prompt', { name: 'mcp__test__greet' }).approvalLabel, 'mcp__test__greet');
    assert.match(prepareMcpCall(catalog, 'use_prompt', { name: 'mcp__test__nope' }).error ?? '', /Unknown MCP prompt/);
    assert.match(
      prepareMcpCall(catalog, 'use_prompt', { name: 'mcp__test__greet', arguments: [1] }).error ?? '',
      /JSON object/,
    );
  });

  it('offers read_resource and use_prompt only when there are resources or prompts', () => {
    const names = listMcpToolDefinitions(catalog, DEFAULT_BUILTIN_SCHEMAS).map((tool) => tool.name);
    assert.deepEqual(names, ['mcp__test__search', 'read_resource', 'use_prompt']);
    const empty = buildMcpCatalog(new Map([['t', { tools: [], resources: [], templates: [], prompts: [] }]]));
    assert.deepEqual(listMcpToolDefinitions(empty, DEFAULT_BUILTIN_SCHEMAS), []);
    assert.equal(catalogHasTool(empty, 'read_resource'), false);
    assert.equal(catalogHasTool(catalog, 'read_resource'), true);
  });

  it('formats tool output: text joined, binary summarized, empty and error marked', () => {
    assert.deepEqual(
      formatToolResult({
        content: [
          { type: 'text', text: 'a' },
          { type: 'image', data: 'AAAA', mimeType: 'image/png' },
        ],
        isError: false,
      }),
      {
        output: 'a\n[image/png data, 4 bytes]',
        isError: false,
      },
    );
    assert.deepEqual(formatToolResult({ content: [], isError: false }), { output: '(no output)', isError: false });
    assert.deepEqual(formatToolResult({ content: [{ type: 'text', text: 'boom' }], isError: true }), {
      output: 'Error: boom',
      isError: true,
    });
    assert.equal(
      formatPromptMessages([
        { role: 'user', content: { type: 'text', text: 'Review this code' } },
        { role: 'assistant', content: { type: 'text', text: 'Looks good!' } },
      ]),
      '[user]: Review this code\n\n[assistant]: Looks good!',
    );
  });
});
