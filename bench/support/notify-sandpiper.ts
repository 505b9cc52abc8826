/** Benchmark child: the real Sandpiper gateway (startGateway, no channel adapter) serving POST /v1/api/notify. */
import { loadConfig } from '../../src/config/index.js';
import { startGateway } from '../../src/main.js';
import { createLogger } from '../../src/shared/logger.js';

const { dataDir, databaseUrl, secret } = JSON.parse(process.argv[2] ?? '{}') as {
  dataDir: string;
  databaseUrl: string;
  secret: string;
};
const config = loadConfig({
  cwd: dataDir,
  env: {},
  flags: {
    'gateway.data_dir': dataDir,
    'gateway.http_port': 0,
    'gateway.http_host': '127.0.0.1',
    'database.url': databaseUrl,
    'auth.jwt_secret': secret,
  },
});
// Logging as deployed (JSON, info: one line per notification) into the stderr the orchestrator discards.
const running = await startGateway(config, createLogger({ level: 'info', format: 'json' }));
process.on('disconnect', () => process.exit(0));
process.on('message', () => void running.stop().finally(() => process.exit(0)));
process.send?.({ type: 'ready', url: running.httpUrl });
