import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { ToolDefinition } from '../tools/tool.js';
import {
  ExpandedTools,
  NO_MATCH_TEXT,
  formatSearchResult,
  isToolSearchActive,
  namesInSearchResult,
  partitionTools,
  searchDeferred,
  summarizeDeferred,
  toolSearchDefinition,
} from './tool-search.js';
import { DeferredToolIndex } from './deferred-index.js';
import { WorkstreamToolSearch } from './workstream-tool-search.js';
import { toolContext } from '../../../test/fakes/mcp-servers.js';

function tool(name: string, description = `${name} tool`): ToolDefinition {
  return {
    name,
    description,
    parameters: { type: 'object', properties: {} },
    agent: false,
    taskAgent: false,
    autoApprove: false,
  };
}

const BUILTINS = ['bash', 'read_file', 'write_file'].map((name) => tool(name));
const MCP = [
  tool('mcp__github__create_issue', 'Create a new issue in a GitHub repository'),
  tool('mcp__github__list_issues', 'List issues of a GitHub repository'),
  tool('mcp__github__get_file', 'Get the contents of a file from a repository'),
  tool('mcp__slack__post_message', 'Post a message to a Slack channel'),
  tool('mcp__slack__list_channels', 'List Slack channels'),
];
const ALL = [...BUILTINS, ...MCP];

describe('activation', () => {
  it('on always, off never, auto only strictly above the threshold', () => {
    const settings = (mode: 'auto' | 'on' | 'off') => ({ mode, threshold: 20, maxResults: 5 });
    assert.equal(isToolSearchActive(settings('on'), 1), true);
    assert.equal(isToolSearchActive(settings('off'), 500), false);
    assert.equal(isToolSearchActive(settings('auto'), 20), false);
    assert.equal(isToolSearchActive(settings('auto'), 21), true);
  });
});

describe('partition and definition', () => {
  it('never defers built-ins; every MCP tool is deferred', () => {
    const { alwaysOn, deferred } = partitionTools(ALL);
    assert.deepEqual(
      alwaysOn.map((t) => t.name),
      ['bash', 'read_file', 'write_file'],
    );
    assert.equal(deferred.length, 5);
  });

  it('summarises deferred counts per server, sorted, with "other" last', () => {
    assert.equal(summarizeDeferred([...MCP].reverse()), 'github (3 tools), slack (2 tools)');
    assert.equal(summarizeDeferred([MCP[3] as ToolDefinition, tool('custom')]), 'slack (1 tool), other (1 tool)');
  });

  it('tool_search takes one required query and names each server', () => {
    const definition = toolSearchDefinition(partitionTools(ALL).deferred);
    assert.equal(definition.name, 'tool_search');
    assert.deepEqual((definition.parameters as { required: string[] }).required, ['query']);
    assert.match(definition.description, /Available tool servers: github \(3 tools\), slack \(2 tools\)\.$/);
    assert.doesNotMatch(toolSearchDefinition([]).description, /Available tool servers/);
  });
});

describe('search and result text', () => {
  it('finds relevant tools, at most maxResults, skipping expanded ones', () => {
    const deferred = partitionTools(ALL).deferred;
    const found = searchDeferred(deferred, 'github issue', 5, new Set());
    assert.deepEqual(
      found
        .slice(0, 2)
        .map((t) => t.name)
        .sort(),
      ['mcp__github__create_issue', 'mcp__github__list_issues'],
    );
    assert.equal(searchDeferred(deferred, 'github issue', 1, new Set()).length, 1);
    const without = searchDeferred(deferred, 'github issue', 5, new Set(['mcp__github__create_issue']));
    assert.ok(!without.some((t) => t.name === 'mcp__github__create_issue'));
    assert.ok(without.some((t) => t.name === 'mcp__github__list_issues'));
    assert.deepEqual(searchDeferred(deferred, 'kubernetes', 5, new Set()), []);
  });

  it('builds the index once per catalog and again when a tool is added, removed or re-described', () => {
    const indexes = new DeferredToolIndex();
    const deferred = partitionTools(ALL).deferred;
    searchDeferred(deferred, 'github issue', 5, new Set(), indexes);
    searchDeferred([...deferred], 'slack message', 5, new Set(), indexes);
    assert.equal(indexes.builds, 1, 'an equal catalog (even as a new array) reuses the index');
    const added = [
      ...deferred,
      { ...(deferred[0] as ToolDefinition), name: 'mcp__k8s__deploy', description: 'Deploy to kubernetes' },
    ];
    assert.deepEqual(
      searchDeferred(added, 'kubernetes', 5, new Set(), indexes).map((t) => t.name),
      ['mcp__k8s__deploy'],
    );
    assert.equal(indexes.builds, 2);
    const redescribed = added.map((tool) =>
      tool.name === 'mcp__k8s__deploy' ? { ...tool, description: 'Roll out a helm chart' } : tool,
    );
    assert.deepEqual(searchDeferred(redescribed, 'kubernetes', 5, new Set(), indexes), []);
    assert.deepEqual(searchDeferred(deferred, 'kubernetes', 5, new Set(), indexes), []);
    assert.equal(indexes.builds, 4);
  });

  it('formats none and several results; the names can be read back', () => {
    assert.equal(formatSearchResult([]), NO_MATCH_TEXT);
    const text = formatSearchResult(MCP.slice(0, 2));
    assert.match(text, /^Found 2 matching tool\(s\):\n- \*\*mcp__github__create_issue\*\*: Create a new issue/);
    assert.match(text, /\n\nThese tools are now available/);
    assert.deepEqual(namesInSearchResult(text), ['mcp__github__create_issue', 'mcp__github__list_issues']);
  });
});

describe('ExpandedTools', () => {
  it('expand is idempotent, ignores unknown and built-in names, keeps discovery order', () => {
    const deferred = partitionTools(ALL).deferred;
    const expanded = new ExpandedTools();
    assert.equal(expanded.expand(['mcp__slack__post_message', 'mcp__github__get_file'], deferred).length, 2);
    assert.deepEqual(expanded.expand(['mcp__slack__post_message', 'mcp__github__get_file'], deferred), []);
    assert.deepEqual(expanded.expand(['nope', 'bash'], deferred), []);
    assert.deepEqual(expanded.names(), ['mcp__slack__post_message', 'mcp__github__get_file']);
    assert.deepEqual(
      expanded.visible(deferred.filter((t) => t.name !== 'mcp__github__get_file')).map((t) => t.name),
      ['mcp__slack__post_message'],
    );
  });
});

describe('WorkstreamToolSearch', () => {
  function manager(
    mode: 'auto' | 'on' | 'off',
    threshold: number,
    tools: { list: ToolDefinition[] },
  ): WorkstreamToolSearch {
    return new WorkstreamToolSearch({ mode, threshold, maxResults: 5 }, () => Promise.resolve(tools.list));
  }

  it('active: built-ins + expanded + tool_search; a search expands; inactive: everything', async () => {
    const tools = { list: ALL };
    const search = manager('on', 20, tools);
    assert.deepEqual(
      search.select(ALL).tools.map((t) => t.name),
      ['bash', 'read_file', 'write_file', 'tool_search'],
    );
    const result = await search.callTool('tool_search', { query: 'slack message' }, toolContext());
    assert.match(String(result.output), /^Found \d matching tool\(s\):\n- \*\*mcp__slack__post_message\*\*/);
    assert.ok(search.select(ALL).tools.some((t) => t.name === 'mcp__slack__post_message'));
    assert.equal(manager('off', 0, tools).select(ALL).tools.length, ALL.length);
  });

  it('prepare: empty query and inactive search are errors; otherwise no approval', async () => {
    const tools = { list: ALL };
    assert.equal(
      (await manager('on', 20, tools).prepare('tool_search', { query: '  ' }, toolContext())).error,
      'Error: no query provided',
    );
    assert.equal(
      (await manager('off', 20, tools).prepare('tool_search', { query: 'x' }, toolContext())).error,
      'Tool search is not active.',
    );
    const ok = await manager('on', 20, tools).prepare('tool_search', { query: 'github' }, toolContext());
    assert.deepEqual([ok.header, ok.needsApproval, ok.error], ['⚙ tool_search: github', false, undefined]);
  });

  it('keeps expanded names when auto mode drops below the threshold and re-expands them when it comes back', async () => {
    const tools = { list: ALL };
    const search = manager('auto', 7, tools);
    await search.callTool('tool_search', { query: 'slack channels' }, toolContext());
    assert.ok(search.select(ALL).tools.some((t) => t.name === 'mcp__slack__list_channels'));
    const fewer = ALL.filter((t) => t.name !== 'mcp__github__get_file');
    assert.equal(search.select(fewer).active, false);
    assert.equal(search.select(ALL).active, true);
    assert.ok(search.select(ALL).tools.some((t) => t.name === 'mcp__slack__list_channels'));
    const withoutIt = [...ALL.filter((t) => t.name !== 'mcp__slack__list_channels'), tool('mcp__x__y')];
    assert.ok(
      !search.select(withoutIt).tools.some((t) => t.name === 'mcp__slack__list_channels'),
      'removed tools silently drop out',
    );
  });

  it('a deferred tool called by exact name becomes visible; history restores the expanded set', () => {
    const search = manager('on', 20, { list: ALL });
    search.noteCalled('mcp__github__get_file', ALL);
    search.noteCalled('bash', ALL);
    assert.deepEqual(search.expanded.names(), ['mcp__github__get_file']);
    const restored = manager('on', 20, { list: ALL });
    restored.restoreFrom([
      { role: 'assistant', content: '', toolCalls: [{ id: 'c1', name: 'tool_search', arguments: '{}' }] },
      { role: 'tool', toolCallId: 'c1', name: 'tool_search', content: formatSearchResult([MCP[4] as ToolDefinition]) },
      { role: 'assistant', content: '', toolCalls: [{ id: 'c2', name: 'mcp__github__get_file', arguments: '{}' }] },
    ]);
    assert.deepEqual(restored.expanded.names(), ['mcp__slack__list_channels', 'mcp__github__get_file']);
  });
});
