/** Contract suite for McpServerStore: unique names, JSON fields, enabled filter, update, delete. */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { useStores, type StoresFactory } from './stores-factory.js';

export function mcpServerStoreContract(label: string, factory: StoresFactory): void {
  describe(`McpServerStore contract (${label})`, () => {
    const stores = useStores(factory);

    it('creates a stdio server with its arguments and environment', async () => {
      const created = await stores().mcpServers.create({
        name: 'files',
        transport: 'stdio',
        command: 'npx',
        args: ['-y', 'server-filesystem', '/tmp'],
        env: { DEBUG: '1' },
      });
      assert.ok(created);
      assert.deepEqual(created.args, ['-y', 'server-filesystem', '/tmp']);
      assert.deepEqual(created.env, { DEBUG: '1' });
      assert.deepEqual(created.headers, {});
      assert.equal(created.enabled, true);
      assert.equal(created.autoApprove, false);
      assert.deepEqual(await stores().mcpServers.getByName('files'), created);
      assert.equal(await stores().mcpServers.create({ name: 'files', transport: 'stdio' }), undefined);
    });

    it('lists by name and filters disabled servers', async () => {
      await stores().mcpServers.create({
        name: 'web',
        transport: 'streamable-http',
        url: 'http://127.0.0.1:9/mcp',
        headers: { Authorization: 'Bearer x' },
      });
      await stores().mcpServers.create({ name: 'off', transport: 'stdio', command: 'x', enabled: false });
      assert.deepEqual(
        (await stores().mcpServers.list()).map((row) => row.name),
        ['files', 'off', 'web'],
      );
      assert.deepEqual(
        (await stores().mcpServers.list({ enabledOnly: true })).map((row) => row.name),
        ['files', 'web'],
      );
      assert.deepEqual((await stores().mcpServers.getByName('web'))?.headers, { Authorization: 'Bearer x' });
    });

    it('updates and deletes a server', async () => {
      const row = await stores().mcpServers.getByName('off');
      assert.ok(row);
      assert.equal(
        await stores().mcpServers.update(row.serverId, { enabled: true, args: ['--port', '1'], autoApprove: true }),
        true,
      );
      const updated = await stores().mcpServers.getByName('off');
      assert.deepEqual([updated?.enabled, updated?.args, updated?.autoApprove], [true, ['--port', '1'], true]);
      assert.equal(await stores().mcpServers.delete(row.serverId), true);
      assert.equal(await stores().mcpServers.update(row.serverId, { enabled: false }), false);
    });
  });
}
