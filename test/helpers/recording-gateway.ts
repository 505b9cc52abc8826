/** The fast gateway tests' fixture: the real gateway and agent core on the recording adapter, a scripted model and a fresh database. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../../src/config/index.js';
import { createGateway, type Gateway } from '../../src/gateway/gateway.js';
import type { GatewayDeps } from '../../src/gateway/gateway-types.js';
import { createAgentRuntime, type AgentRuntime } from '../../src/main-agent.js';
import { createSilentLogger } from '../../src/shared/logger.js';
import { FakeModelProvider } from '../fakes/fake-model-provider.js';
import { RecordingAdapter, type RecordingAdapterOptions } from '../fakes/recording-adapter.js';
import { createTestStores, type TestStores } from './test-stores.js';
import { waitFor } from './wait-for.js';

export interface RecordingGateway {
  db: TestStores;
  runtime: AgentRuntime;
  gateway: Gateway;
  /** The model every turn talks to (provider `fake`). */
  model: FakeModelProvider;
  adapter: RecordingAdapter;
  /** Stops the gateway and the runtime, closes the database and removes the data folder. */
  close(): Promise<void>;
}

/**
 * Starts the gateway with config `flags` (besides its data folder and the `fake` model) and gateway `options`.
 * `realModel` (the `fake` alias's settings, e.g. a provider and the base URL of test/fakes/fake-llm-server.ts) runs
 * the real provider and its SDK instead of the scripted `model`.
 */
export async function startRecordingGateway(
  prefix: string,
  flags: Record<string, unknown>,
  options: NonNullable<GatewayDeps['options']>,
  adapterOptions: RecordingAdapterOptions = {},
  realModel?: Record<string, unknown>,
): Promise<RecordingGateway> {
  const db = await createTestStores();
  const dir = mkdtempSync(join(tmpdir(), prefix));
  const config = loadConfig({
    cwd: dir,
    env: {},
    flags: {
      'gateway.data_dir': dir,
      ...flags,
      models: {
        fake: realModel ?? { provider: 'openai', base_url: 'http://127.0.0.1:9/v1', api_key: 'k', model: 'm' },
      },
    },
  });
  const model = new FakeModelProvider();
  const providers = realModel ? {} : { providers: { fake: model } };
  const runtime = await createAgentRuntime(config, db.stores, createSilentLogger(), {
    evictIntervalMs: 0,
    ...providers,
  });
  const adapter = new RecordingAdapter(adapterOptions);
  const gateway = createGateway({
    config,
    adapters: [adapter],
    manager: runtime.manager,
    stores: db.stores,
    logger: createSilentLogger(),
    options,
  });
  await gateway.start(new AbortController().signal);
  const close = async (): Promise<void> => {
    await gateway.stop();
    await runtime.close();
    await db.close();
    rmSync(dir, { recursive: true, force: true });
  };
  return { db, runtime, gateway, model, adapter, close };
}

/** Resolves with `probe`'s first truthy value (the one polling helper, test/helpers/wait-for.ts, with its limit). */
export function until<T>(probe: () => T | undefined | false, what: string): Promise<T> {
  return waitFor(() => probe() || undefined, what);
}
