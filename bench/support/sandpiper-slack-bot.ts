/** Slack benchmark child: the real Sandpiper gateway (startGateway, SQLite file, the openai provider) against the fakes. */
import { runSandpiperChild } from './sandpiper-child.js';
import type { SlackBotLaunch } from './slack-bot-launch.js';

const launch = JSON.parse(process.argv[2] ?? '{}') as SlackBotLaunch;
const delivery =
  launch.delivery === 'http'
    ? { 'slack.mode': 'http', 'slack.signing_secret': launch.signingSecret }
    : { 'slack.app_token': launch.appToken };
await runSandpiperChild(launch, {
  'slack.bot_token': launch.botToken,
  ...delivery,
  'slack.api_url': launch.slackApiUrl,
  'slack.native_streaming': launch.mode === 'stream',
});
