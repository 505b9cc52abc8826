/** Merging MCP server definitions from TOML, the JSON file and database rows. */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { McpServerRow } from '../../storage/mcp-server-store.js';
import { mergeMcpServerConfigs, readMcpConfigFile } from './merge-mcp-server-configs.js';
import { specFingerprint } from './mcp-server-spec.js';

const row = (name: string, extra: Partial<McpServerRow> = {}): McpServerRow => ({
  serverId: name,
  name,
  transport: 'stdio',
  command: 'db-cmd',
  args: [],
  url: '',
  headers: {},
  env: {},
  autoApprove: false,
  enabled: true,
  createdBy: '',
  created: '',
  updated: '',
  ...extra,
});

describe('mergeMcpServerConfigs', () => {
  it('merges by name with database over file over TOML', () => {
    const merged = mergeMcpServerConfigs({
      toml: {
        a: { type: 'stdio', command: 'toml-a', args: [], env: {}, headers: {} },
        b: { type: 'stdio', command: 'toml-b', args: [], env: {}, headers: {} },
        c: { type: 'http', url: 'http://127.0.0.1:9/mcp', args: [], env: {}, headers: { Authorization: 'x' } },
      },
      file: { b: { command: 'file-b', args: ['--x'], env: { K: 'v' } }, d: { url: 'https://example.invalid/mcp' } },
      database: [row('a'), row('e', { enabled: false })],
    });
    assert.deepEqual(
      merged.servers.map((server) => [server.name, server.source, server.transport, server.command || server.url]),
      [
        ['a', 'database', 'stdio', 'db-cmd'],
        ['b', 'file', 'stdio', 'file-b'],
        ['c', 'toml', 'http', 'http://127.0.0.1:9/mcp'],
        ['d', 'file', 'http', 'https://example.invalid/mcp'],
      ],
    );
    assert.deepEqual(merged.servers[1]?.env, { K: 'v' });
    assert.deepEqual(
      merged.servers.map((server) => [server.name, server.sandbox === true, server.unsandboxedFallback === true]),
      [
        ['a', true, false],
        ['b', false, false],
        ['c', false, false],
        ['d', false, false],
      ],
      'a stdio server added at run time runs in the sandbox; the operator decides for the files',
    );
    const allowed = mergeMcpServerConfigs({ database: [row('a')], allowUnsandboxedRuntime: true });
    assert.equal(allowed.servers[0]?.unsandboxedFallback, true);
  });

  it('rejects bad names and incomplete entries but keeps the others', () => {
    const merged = mergeMcpServerConfigs({
      file: {
        my__bad: { command: 'x' },
        'bad name!': { command: 'x' },
        nocmd: {},
        badargs: { command: 'x', args: 'nope' },
        good: { command: 'x' },
      },
    });
    assert.deepEqual(
      merged.servers.map((server) => server.name),
      ['good'],
    );
    const reasons = Object.fromEntries(merged.rejected.map((entry) => [entry.name, entry.reason]));
    assert.match(reasons['my__bad'] ?? '', /__/);
    assert.match(reasons['bad name!'] ?? '', /letters, digits/);
    assert.match(reasons['nocmd'] ?? '', /command/);
    assert.match(reasons['badargs'] ?? '', /args/);
  });

  it('fingerprints definitions so only real changes reconnect', () => {
    const [first] = mergeMcpServerConfigs({ file: { a: { command: 'x', env: { A: '1', B: '2' } } } }).servers;
    const [same] = mergeMcpServerConfigs({ file: { a: { command: 'x', env: { B: '2', A: '1' } } } }).servers;
    const [changed] = mergeMcpServerConfigs({ file: { a: { command: 'y', env: { A: '1', B: '2' } } } }).servers;
    assert.ok(first && same && changed);
    assert.equal(specFingerprint(first), specFingerprint(same));
    assert.notEqual(specFingerprint(first), specFingerprint(changed));
  });
});

describe('readMcpConfigFile', () => {
  it('reads mcpServers and reports missing or broken files as errors without throwing', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sandpiper-mcp-json-'));
    try {
      const good = join(dir, 'good.json');
      writeFileSync(
        good,
        JSON.stringify({ mcpServers: { github: { command: 'npx', env: { GITHUB_TOKEN: 'test' } } }, ignored: true }),
      );
      const parsed = await readMcpConfigFile(good);
      assert.ok(parsed.ok);
      assert.deepEqual(Object.keys(parsed.value), ['github']);
      const broken = join(dir, 'broken.json');
      writeFileSync(broken, 'not json');
      assert.deepEqual(await readMcpConfigFile(broken), { ok: false, error: 'MCP config file is not valid JSON' });
      assert.deepEqual(await readMcpConfigFile(join(dir, 'missing.json')), {
        ok: false,
        error: 'MCP config file not found',
      });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
