/** Benchmark child: the real Sandpiper gateway (startGateway, SQLite file, the openai provider) against the fakes. */
import type { BotLaunch } from './bot-launch.js';
import { runSandpiperChild } from './sandpiper-child.js';

const launch = JSON.parse(process.argv[2] ?? '{}') as BotLaunch;
await runSandpiperChild(launch, {
  'discord.token': launch.discordToken,
  'discord.api_url': launch.discordApiUrl,
  'discord.global_requests_per_second': launch.globalRequestsPerSecond,
});
