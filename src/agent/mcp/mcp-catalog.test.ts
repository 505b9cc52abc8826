/** Catalog building: tool naming and schema form, resource/template routing, prompt mapping. */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { buildMcpCatalog, resolveResource, type ServerCatalog } from './mcp-catalog.js';

function server(partial: Partial<ServerCatalog>): ServerCatalog {
  return { tools: [], resources: [], templates: [], prompts: [], ...partial };
}

const tool = (
  name: string,
  extra: Partial<{
    description: string;
    inputSchema: Record<string, unknown>;
    annotations: Record<string, unknown>;
  }> = {},
) => ({
  name,
  description: extra.description ?? '',
  inputSchema: extra.inputSchema ?? { type: 'object', properties: {} },
  ...(extra.annotations ? { annotations: extra.annotations } : {}),
});
const resource = (uri: string) => ({ uri, name: '', description: '', mimeType: '' });

describe('buildMcpCatalog', () => {
  it('prefixes tools as mcp__<server>__<tool> in OpenAI function form and keeps annotations', () => {
    const catalog = buildMcpCatalog(
      new Map([
        [
          'github',
          server({
            tools: [
              tool('search_repos', {
                description: 'Search',
                inputSchema: { type: 'object', properties: { query: { type: 'string' } } },
                annotations: { readOnlyHint: true },
              }),
            ],
          }),
        ],
        ['fs', server({ tools: [tool('list_files'), tool('has__double')] })],
      ]),
    );
    assert.deepEqual(
      catalog.tools.map((entry) => entry.name),
      ['mcp__github__search_repos', 'mcp__fs__list_files', 'mcp__fs__has__double'],
    );
    const search = catalog.toolMap.get('mcp__github__search_repos');
    assert.deepEqual(search?.function, {
      name: 'mcp__github__search_repos',
      description: 'Search',
      parameters: { type: 'object', properties: { query: { type: 'string' } } },
    });
    assert.deepEqual(search?.annotations, { readOnlyHint: true });
    assert.equal(
      catalog.toolMap.get('mcp__fs__has__double')?.originalName,
      'has__double',
      'original names survive a "__" inside',
    );
  });

  it('skips tool and prompt names a model API would reject', () => {
    const catalog = buildMcpCatalog(
      new Map([
        [
          's',
          server({
            tools: [tool('bad name'), tool('x'.repeat(80)), tool('ok')],
            prompts: [{ name: '<evil>', description: '', arguments: [] }],
          }),
        ],
      ]),
    );
    assert.deepEqual(
      catalog.tools.map((entry) => entry.name),
      ['mcp__s__ok'],
    );
    assert.equal(catalog.prompts.length, 0);
  });

  it('builds fresh objects on every rebuild', () => {
    const input = new Map([['s', server({ tools: [tool('a')] })]]);
    const first = buildMcpCatalog(input);
    const second = buildMcpCatalog(input);
    assert.notEqual(first.tools, second.tools);
    assert.notEqual(first.toolMap, second.toolMap);
    assert.deepEqual(buildMcpCatalog(new Map()).tools, []);
  });

  it('maps concrete resources, keeps templates out of the map, and routes templated URIs by the longest prefix', () => {
    const catalog = buildMcpCatalog(
      new Map([
        ['fs', server({ resources: [resource('file:///readme.md')] })],
        [
          'db',
          server({
            templates: [
              resource('db://data/{collection}'),
              resource('db://data/tables/{table}'),
              resource('db://tables/{table}/rows/{id}'),
            ],
          }),
        ],
      ]),
    );
    assert.equal(catalog.resources.length, 4);
    assert.equal(catalog.resourceMap.has('db://tables/{table}/rows/{id}'), false);
    assert.equal(resolveResource(catalog, 'file:///readme.md')?.server, 'fs');
    assert.equal(resolveResource(catalog, 'db://tables/users/rows/1')?.uri, 'db://tables/{table}/rows/{id}');
    assert.equal(resolveResource(catalog, 'db://data/tables/users')?.uri, 'db://data/tables/{table}');
    assert.equal(resolveResource(catalog, 'db://data/views/active')?.uri, 'db://data/{collection}');
    assert.equal(resolveResource(catalog, 'file:///something'), undefined);
  });

  it('lets the later server win a duplicate URI', () => {
    const catalog = buildMcpCatalog(
      new Map([
        ['a', server({ resources: [resource('x://1')] })],
        ['b', server({ resources: [resource('x://1')] })],
      ]),
    );
    assert.equal(catalog.resourceMap.get('x://1')?.server, 'b');
  });

  it('prefixes prompts and remembers the original name', () => {
    const catalog = buildMcpCatalog(
      new Map([
        [
          'tmpl',
          server({
            prompts: [
              {
                name: 'review',
                description: 'Review',
                arguments: [{ name: 'language', description: '', required: true }],
              },
            ],
          }),
        ],
      ]),
    );
    assert.equal(catalog.promptMap.get('mcp__tmpl__review')?.originalName, 'review');
    assert.equal(catalog.promptMap.has('mcp__tmpl__revie'), false);
  });
});
