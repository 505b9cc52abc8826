/** Slack benchmark child: the real Sandpiper gateway (startGateway, SQLite file, the openai provider) against the fakes. */
import { loadConfig } from '../../src/config/index.js';
import { startGateway } from '../../src/main.js';
import { createLogger } from '../../src/shared/logger.js';
import { serveStats } from './bot-stats.js';
import type { SlackBotLaunch } from './slack-bot-launch.js';

const launch = JSON.parse(process.argv[2] ?? '{}') as SlackBotLaunch;
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
    'slack.bot_token': launch.botToken,
    'slack.app_token': launch.appToken,
    'slack.api_url': launch.slackApiUrl,
    'slack.native_streaming': launch.mode === 'stream',
    'agent.max_active_workstreams': 5000,
  },
});
// Logging as deployed (JSON, info) into the stderr the orchestrator discards.
const logger = createLogger({ level: 'info', format: 'json' });
const running = await startGateway(config, logger);
await running.ready;
serveStats(() => running.stop());
process.send?.({ type: 'ready' });
