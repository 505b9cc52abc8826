/** MCP configuration sources, reconcile, and the prompt-template sync against a real migrated database. */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createMcpManager, type McpManager } from '../../src/agent/mcp/mcp-manager.js';
import { loadMcpServerSpecs } from '../../src/agent/mcp/load-mcp-server-specs.js';
import { mergeMcpServerConfigs, readMcpConfigFile } from '../../src/agent/mcp/merge-mcp-server-configs.js';
import { createTestStores, type TestStores } from '../helpers/test-stores.js';
import { EVERYTHING, FILESYSTEM, everythingStdio, stdioSpec, waitFor } from '../fakes/mcp-servers.js';

const parentEnv = { PATH: process.env['PATH'], HOME: process.env['HOME'] };

describe('MCP servers from TOML, JSON file and database rows', () => {
  let db: TestStores;
  let dir: string;
  let manager: McpManager | undefined;

  before(async () => {
    db = await createTestStores();
    dir = mkdtempSync(join(tmpdir(), 'sandpiper-mcp-cfg-'));
  });

  after(async () => {
    await manager?.shutdown();
    await db.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('merges the three sources (database > file > TOML), rejects bad names, and connects the rest', async () => {
    const file = join(dir, 'mcp.json');
    writeFileSync(
      file,
      JSON.stringify({
        mcpServers: { fs: { command: process.execPath, args: [FILESYSTEM, dir] }, bad__name: { command: 'x' } },
        other: 1,
      }),
    );
    await db.stores.mcpServers.create({
      name: 'everything',
      transport: 'stdio',
      command: process.execPath,
      args: [EVERYTHING, 'stdio'],
    });
    await db.stores.mcpServers.create({ name: 'disabled', transport: 'stdio', command: 'nope', enabled: false });
    const fileServers = await readMcpConfigFile(file);
    assert.ok(fileServers.ok);
    const merged = mergeMcpServerConfigs({
      toml: { everything: { type: 'stdio', command: 'does-not-exist', args: [], env: {}, headers: {} } },
      file: fileServers.value,
      database: await db.stores.mcpServers.list(),
      // This manager has no sandbox: the runtime (database) server may run unsandboxed only because the config allows it.
      allowUnsandboxedRuntime: true,
    });
    assert.deepEqual(
      merged.servers.map((server) => `${server.name}:${server.source}`),
      ['everything:database', 'fs:file'],
    );
    assert.deepEqual(
      merged.servers.map((server) => [server.sandbox === true, server.unsandboxedFallback === true]),
      [
        [true, true],
        [false, false],
      ],
    );
    assert.deepEqual(
      merged.rejected.map((entry) => entry.name),
      ['bad__name'],
    );
    await db.stores.promptTemplates.create({
      name: 'mcp__everything__simple-prompt',
      content: 'mine',
      origin: 'manual',
    });
    await db.stores.promptTemplates.create({
      name: 'mcp__elsewhere__kept',
      content: 'from another process',
      origin: 'mcp',
      mcpServer: 'elsewhere',
      readonly: true,
    });
    manager = createMcpManager({
      servers: merged.servers,
      parentEnv,
      promptTemplates: db.stores.promptTemplates,
      debounceMs: 50,
    });
    await manager.start();
    assert.equal(manager.status().servers, 2);
  });

  it('syncs MCP prompts into prompt_templates as read-only rows, leaving manual rows alone', async () => {
    assert.ok(manager);
    const result = await manager.syncPromptTemplates();
    assert.ok(result.skipped.includes('mcp__everything__simple-prompt'));
    const row = await db.stores.promptTemplates.getByName('mcp__everything__args-prompt');
    assert.equal(row?.origin, 'mcp');
    assert.equal(row?.mcpServer, 'everything');
    assert.equal(row?.readonly, true);
    assert.equal(row?.category, 'mcp');
    assert.deepEqual(row?.variables, ['city', 'state']);
    assert.match(row?.content ?? '', /Arguments:\n {2}- city \(required\): /);
    assert.equal((await db.stores.promptTemplates.getByName('mcp__everything__simple-prompt'))?.content, 'mine');
    assert.ok(
      await db.stores.promptTemplates.getByName('mcp__elsewhere__kept'),
      'rows of servers this process does not manage stay',
    );
  });

  it('resets an admin-promoted default on the next sync', async () => {
    assert.ok(manager);
    const row = await db.stores.promptTemplates.getByName('mcp__everything__args-prompt');
    assert.ok(row);
    await db.stores.promptTemplates.update(row.templateId, { isDefault: true });
    const result = await manager.syncPromptTemplates();
    assert.deepEqual(result.updated, ['mcp__everything__args-prompt']);
    assert.equal((await db.stores.promptTemplates.getByName('mcp__everything__args-prompt'))?.isDefault, false);
  });

  it('reconciles: removes a dropped server (and its prompt rows), adds a new one, reconnects a changed one', async () => {
    assert.ok(manager);
    const result = await manager.reconcile([
      stdioSpec('fs', [FILESYSTEM, dir, tmpdir()], { source: 'file' }),
      everythingStdio('second'),
    ]);
    assert.deepEqual(result, { added: ['second'], removed: ['everything'], updated: ['fs'], failed: [] });
    const status = manager.status();
    assert.deepEqual(status.perServer.map((server) => `${server.name}:${server.connected}`).sort(), [
      'fs:true',
      'second:true',
    ]);
    assert.equal(manager.hasTool('mcp__everything__echo'), false);
    assert.equal(manager.hasTool('mcp__second__echo'), true);
    await waitFor(
      async () => (await db.stores.promptTemplates.getByName('mcp__everything__args-prompt')) === undefined,
      'removed server prompts to be deleted',
    );
    await waitFor(
      async () => (await db.stores.promptTemplates.getByName('mcp__second__args-prompt')) !== undefined,
      'new server prompts to be created',
    );
    assert.ok(await db.stores.promptTemplates.getByName('mcp__elsewhere__kept'));
    const unchanged = await manager.reconcile([
      stdioSpec('fs', [FILESYSTEM, dir, tmpdir()], { source: 'file' }),
      everythingStdio('second'),
    ]);
    assert.deepEqual(unchanged, { added: [], removed: [], updated: [], failed: [] });
  });

  it('keeps a server that fails to connect configured, with its error in status', async () => {
    assert.ok(manager);
    const result = await manager.reconcile([
      stdioSpec('fs', [FILESYSTEM, dir, tmpdir()], { source: 'file' }),
      everythingStdio('second'),
      stdioSpec('broken', [join(dir, 'missing-server.js')]),
    ]);
    assert.deepEqual(result.failed, ['broken']);
    await db.stores.promptTemplates.create({
      name: 'mcp__broken__p',
      content: 'synced by a process that can reach it',
      origin: 'mcp',
      mcpServer: 'broken',
      readonly: true,
    });
    await manager.syncPromptTemplates();
    assert.ok(
      await db.stores.promptTemplates.getByName('mcp__broken__p'),
      'an unreachable server does not wipe rows another process synced',
    );
    const broken = manager.status().perServer.find((server) => server.name === 'broken');
    assert.equal(broken?.connected, false);
    assert.notEqual(broken?.error, '');
    assert.equal(manager.status().servers, 2);
  });

  it('refreshes one server or all and reports per-server outcomes', async () => {
    assert.ok(manager);
    const one = await manager.refresh('second');
    assert.deepEqual(Object.keys(one), ['second']);
    assert.equal(one['second']?.error, undefined);
    const all = await manager.refresh();
    assert.deepEqual(Object.keys(all).sort(), ['broken', 'fs', 'second']);
    assert.match(all['broken']?.error ?? '', /Refresh failed/);
    await assert.rejects(manager.refresh('nope'), /Unknown MCP server: nope\. Known servers: broken, fs, second/);
  });
});

describe('loadMcpServerSpecs', () => {
  it('reads all three sources and survives an unreadable file and a failing store', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sandpiper-mcp-load-'));
    try {
      writeFileSync(join(dir, 'mcp.json'), JSON.stringify({ mcpServers: { fromfile: { command: 'x' } } }));
      const failingStore = {
        create: () => Promise.reject(new Error('down')),
        getByName: () => Promise.reject(new Error('down')),
        update: () => Promise.reject(new Error('down')),
        delete: () => Promise.reject(new Error('down')),
        list: () => Promise.reject(new Error('no such table')),
      };
      const merged = await loadMcpServerSpecs({
        mcp: {
          servers: { fromtoml: { type: 'stdio', command: 'y', args: [], env: {}, headers: {} } },
          config_file: 'mcp.json',
        },
        baseDir: dir,
        store: failingStore,
      });
      assert.deepEqual(
        merged.servers.map((server) => `${server.name}:${server.source}`),
        ['fromfile:file', 'fromtoml:toml'],
      );
      const missing = await loadMcpServerSpecs({ mcp: { servers: {}, config_file: 'nope.json' }, baseDir: dir });
      assert.deepEqual(missing.servers, []);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
