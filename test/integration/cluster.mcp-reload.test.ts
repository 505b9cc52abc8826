/**
 * MCP reload in a cluster (ADR 0050): three real `sandpiper start` processes on one PostgreSQL; `mcp reload` on one
 * instance's admin API reaches all three (each one's MCP tools change) and the answer says which instances applied it.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mintAdminToken } from '../../src/gateway/http/auth.js';
import { startFakeLlmServer, type FakeLlmServer } from '../fakes/fake-llm-server.js';
import { EVERYTHING, freePort, waitFor } from '../fakes/mcp-servers.js';
import { GatewayProcesses } from '../helpers/gateway-process.js';
import { runBinAsync } from '../helpers/run-bin.js';
import { createThrowawayDatabase, type ThrowawayDatabase } from '../helpers/throwaway-postgres.js';
import { testPostgresUrl } from '../helpers/test-stores.js';

const ADMIN_SECRET = 'cluster-mcp-admin-secret-cluster-mcp-admin';

interface Instance {
  process: GatewayProcesses;
  url: string;
  adminUrl: string;
}

interface ReloadAnswer {
  added: string[];
  removed: string[];
  instances?: { applied: string[]; failed: unknown[]; missing: string[] };
}

const pgUrl = testPostgresUrl();
describe(
  'mcp reload reaches every instance of a cluster',
  { skip: pgUrl === undefined ? 'SANDPIPER_TEST_PG_URL not set' : false },
  () => {
    let llm: FakeLlmServer;
    let database: ThrowawayDatabase;
    const instances: Instance[] = [];
    let headers: Record<string, string>;

    before(async () => {
      llm = await startFakeLlmServer();
      database = (await createThrowawayDatabase('sp_mcp_fanout')) as ThrowawayDatabase;
      headers = {
        authorization: `Bearer ${await mintAdminToken(ADMIN_SECRET, { subject: 'ops', scopes: ['admin:read', 'admin:write'] })}`,
      };
      // One after the other: the first runs the migrations.
      for (let index = 0; index < 3; index += 1) {
        const adminUrl = `http://127.0.0.1:${await freePort()}`;
        const extraToml = [
          '[tools]',
          'sandbox = "off"',
          '',
          '[mcp]',
          'allow_unsandboxed_runtime_servers = true',
          '',
          '[cluster]',
          'heartbeat_s = 1',
          'lease_ttl_s = 3',
          '',
          '[auth]',
          `admin_secret = "${ADMIN_SECRET}"`,
          '',
          '[admin]',
          `listen = "${adminUrl.slice('http://'.length)}"`,
          '',
        ].join('\n');
        const process = new GatewayProcesses({ llm, databaseUrl: database.url, extraToml });
        instances.push({ process, url: (await process.start()).url, adminUrl });
      }
    });
    after(async () => {
      for (const instance of instances) await instance.process.close();
      await llm?.close();
      await database?.drop();
    });

    const mcpTools = async (instance: Instance): Promise<number> => {
      const health = (await (await fetch(`${instance.url}/health`)).json()) as { mcp: { tools: number } };
      return health.mcp.tools;
    };
    const reloadOn = async (instance: Instance): Promise<ReloadAnswer> => {
      const response = await fetch(`${instance.adminUrl}/v1/api/admin/mcp/reload`, {
        method: 'POST',
        headers,
        body: '{}',
      });
      assert.equal(response.status, 200, await response.clone().text());
      return (await response.json()) as ReloadAnswer;
    };
    const ids = async (): Promise<string[]> => {
      const rows = (await instances[0]?.process.db()('services').select('service_id')) as Array<{ service_id: string }>;
      return rows.map((row) => row.service_id).sort();
    };

    it('a server added to the database is connected on all three by one reload, and dropped on all three by another', async () => {
      // Every instance is in the registry before the reload (it asks the live ones).
      await waitFor(async () => (await ids()).length === 3, 'three registered instances', 30_000);
      // And each has read its MCP servers (HTTP answers before that): a server added earlier would be its own start-up's.
      const started = (): boolean =>
        instances.every((instance) => instance.process.output().includes('"msg":"agent enabled"'));
      await waitFor(() => started(), 'every instance to start its agent and MCP', 30_000);
      assert.deepEqual(await Promise.all(instances.map(mcpTools)), [0, 0, 0]);
      await instances[0]?.process.stores().mcpServers.create({
        name: 'everything',
        transport: 'stdio',
        command: process.execPath,
        args: [EVERYTHING, 'stdio'],
      });

      const added = await reloadOn(instances[0] as Instance);
      assert.deepEqual(added.added, ['everything']);
      assert.deepEqual(
        [...(added.instances?.applied ?? [])].sort(),
        await ids(),
        'the answer names every instance as applied',
      );
      assert.deepEqual([added.instances?.failed, added.instances?.missing], [[], []]);
      const tools = await Promise.all(instances.map(mcpTools));
      assert.ok(
        tools.every((count) => count > 0 && count === tools[0]),
        `every instance has the server's tools: ${tools.join(', ')}`,
      );

      // A refresh of one server goes to every instance as well; an unknown server is refused before anything is handed on.
      const refresh = await fetch(`${instances[1]?.adminUrl}/v1/api/admin/mcp/refresh`, {
        method: 'POST',
        headers,
        body: '{"server":"everything"}',
      });
      const refreshed = (await refresh.json()) as { refreshed: string; instances?: { applied: string[] } };
      assert.deepEqual([refreshed.refreshed, refreshed.instances?.applied.length], ['everything', 3]);
      const unknown = await fetch(`${instances[1]?.adminUrl}/v1/api/admin/mcp/refresh`, {
        method: 'POST',
        headers,
        body: '{"server":"nope"}',
      });
      assert.equal(unknown.status, 404);

      const serverId = (await instances[0]?.process.stores().mcpServers.list())?.[0]?.serverId ?? '';
      await instances[0]?.process.stores().mcpServers.delete(serverId);
      // `sandpiper mcp reload` against the third instance's admin listener.
      const third = instances[2] as Instance;
      const cli = await runBinAsync(['mcp', 'reload', '--config', third.process.configFile], third.process.dir);
      assert.equal(cli.code, 0, cli.stderr);
      assert.match(cli.stdout, /^added: none; removed: everything; updated: none\napplied on 3 of 3 instances\n$/);
      assert.deepEqual(await Promise.all(instances.map(mcpTools)), [0, 0, 0], 'dropped everywhere');
    });
  },
);
