/** Runs the coordination contract on LocalCoordination (SQLite) and PostgresCoordination (SANDPIPER_TEST_PG_URL). */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { loadConfig } from '../../src/config/index.js';
import { LocalCoordination } from '../../src/gateway/cluster/local-coordination.js';
import { PostgresCoordination } from '../../src/gateway/cluster/postgres-coordination.js';
import { createAgentRuntime, type AgentRuntime } from '../../src/main-agent.js';
import { createSilentLogger } from '../../src/shared/logger.js';
import type { Stores } from '../../src/storage/stores.js';
import { coordinationContract, type CoordinationWorld } from '../contracts/coordination.contract.js';
import { FakeModelProvider } from '../fakes/fake-model-provider.js';
import { createTestStores, testPostgresUrl } from '../helpers/test-stores.js';

async function world(url: string | undefined): Promise<CoordinationWorld> {
  const db = await createTestStores(url === undefined ? {} : { url });
  const dir = mkdtempSync(join(tmpdir(), 'sandpiper-coordination-'));
  const config = loadConfig({
    cwd: dir,
    env: {},
    flags: {
      'gateway.data_dir': dir,
      'discord.token': 'contract-token',
      models: { fake: { provider: 'openai', base_url: 'http://127.0.0.1:9/v1', api_key: 'k', model: 'm' } },
    },
  });
  const runtimes: AgentRuntime[] = [];
  const stops: Array<() => Promise<void>> = [];
  return {
    stores: db.stores,
    shared: url !== undefined,
    async instance(id: string, stores: Stores = db.stores) {
      const runtime = await createAgentRuntime(config, stores, createSilentLogger(), {
        evictIntervalMs: 0,
        providers: { fake: new FakeModelProvider() },
      });
      runtimes.push(runtime);
      const coordination = url === undefined ? new LocalCoordination() : new PostgresCoordination(config, stores, id);
      const placement = coordination.placement(runtime.manager, createSilentLogger());
      stops.push(() => placement.stop());
      return { coordination, placement };
    },
    async close() {
      for (const stop of stops) await stop();
      for (const runtime of runtimes) await runtime.close();
      await db.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

coordinationContract('local, sqlite', () => world(undefined));

const pgUrl = testPostgresUrl();
if (pgUrl === undefined) {
  describe('Coordination contract (postgres)', () => {
    it('skipped', { skip: 'SANDPIPER_TEST_PG_URL not set' }, () => {});
  });
} else {
  coordinationContract('postgres', () => world(pgUrl));
}
