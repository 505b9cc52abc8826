/** What both Sandpiper benchmark children do: the real gateway (startGateway, SQLite file, the openai provider) against the fakes, answering the orchestrator. */
import { loadConfig } from '../../src/config/index.js';
import { startGateway } from '../../src/main.js';
import { createLogger } from '../../src/shared/logger.js';
import { serveStats } from './bot-stats.js';

export interface SandpiperChildLaunch {
  dataDir: string;
  databaseUrl: string;
  llmUrl: string;
}

/** Starts the gateway with the bench model and `platformFlags` (the chat platform's config keys), then reports `ready`. */
export async function runSandpiperChild(
  launch: SandpiperChildLaunch,
  platformFlags: Record<string, string | number | boolean>,
): Promise<void> {
  const config = loadConfig({
    cwd: launch.dataDir,
    env: {},
    flags: {
      'gateway.data_dir': launch.dataDir,
      'gateway.http_port': 0,
      'gateway.http_host': '127.0.0.1',
      'database.url': launch.databaseUrl,
      'models.bench.provider': 'openai',
      'models.bench.model': 'bench',
      'models.bench.base_url': launch.llmUrl,
      'models.bench.api_key': 'bench-key',
      ...platformFlags,
      'agent.max_active_workstreams': 5000,
    },
  });
  // Logging as deployed (JSON, info) into the stderr the orchestrator discards.
  const logger = createLogger({ level: 'info', format: 'json' });
  const running = await startGateway(config, logger);
  await running.ready;
  serveStats(() => running.stop());
  process.send?.({ type: 'ready', url: running.httpUrl });
}
