/** The bolt app of the Slack adapter: Socket Mode (an app token) or HTTP delivery through the gateway (a signing secret). */
import { App, LogLevel, SocketModeReceiver, type AuthorizeResult, type AuthorizeSourceData } from '@slack/bolt';
import type { AdapterState } from '../channel-adapter.js';
import { ChannelError } from '../../shared/errors.js';
import type { Logger } from '../../shared/logger.js';
import { boltLogger } from './slack-bolt-logger.js';
import type { SlackHistory } from './slack-history.js';
import { SlackHttpReceiver } from './slack-http-receiver.js';

export interface SlackAppSettings {
  mode: 'socket' | 'http';
  /** The one workspace's bot token, used when there is no `authorize` (installs in many workspaces: each event's own). */
  botToken: string | undefined;
  authorize: ((source: AuthorizeSourceData<boolean>) => Promise<AuthorizeResult>) | undefined;
  appToken: string | undefined;
  signingSecret: string | undefined;
  apiUrl: string | undefined;
  webRetries: number | undefined;
  socketRetries: number | undefined;
  clientPingTimeoutMs: number | undefined;
}

export interface SlackAppHooks {
  setState(state: AdapterState): void;
  history: SlackHistory;
  /** Once true, events are neither acknowledged nor handled (the drain: Slack gives them to another connection or instance). */
  inboundStopped(): boolean;
}

/** The configured bolt app, and the HTTP receiver when the mode is `http`. Throws CONFIG_INVALID when a secret is missing. */
export function createSlackApp(
  settings: SlackAppSettings,
  logger: Logger,
  hooks: SlackAppHooks,
): { app: App; http: SlackHttpReceiver | undefined } {
  const bolt = boltLogger(logger);
  const url = settings.apiUrl ? { slackApiUrl: settings.apiUrl } : {};
  let receiver: SocketModeReceiver | SlackHttpReceiver;
  if (settings.mode === 'http') {
    if (!settings.signingSecret)
      throw new ChannelError('slack.signing_secret is required when slack.mode = "http"', { code: 'CONFIG_INVALID' });
    receiver = new SlackHttpReceiver(settings.signingSecret, logger);
  } else {
    if (!settings.appToken)
      throw new ChannelError('slack.bot_token and slack.app_token are required', { code: 'CONFIG_INVALID' });
    receiver = socketReceiver(settings, bolt, url, hooks);
  }
  const retryConfig = { retries: settings.webRetries ?? 2, factor: 2, minTimeout: 500, maxTimeout: 5_000 };
  const auth = settings.authorize ? { authorize: settings.authorize } : { token: settings.botToken ?? '' };
  const app = new App({
    ...auth,
    receiver,
    logger: bolt,
    logLevel: LogLevel.WARN,
    tokenVerificationEnabled: false,
    clientOptions: { ...url, retryConfig, rejectRateLimitedCalls: true, timeout: 15_000 },
  });
  // bolt acknowledges an Events API envelope before any listener runs. Once inbound is stopped (the socket is still
  // closing) an envelope must not be acknowledged at all, so Slack gives it to another connection instead of it
  // being acknowledged here and then dropped.
  const processEvent = app.processEvent.bind(app);
  app.processEvent = (event) => (hooks.inboundStopped() ? Promise.resolve() : processEvent(event));
  return { app, http: receiver instanceof SlackHttpReceiver ? receiver : undefined };
}

function socketReceiver(
  settings: SlackAppSettings,
  logger: ReturnType<typeof boltLogger>,
  url: { slackApiUrl?: string },
  hooks: SlackAppHooks,
): SocketModeReceiver {
  const socketRetry = settings.socketRetries === undefined ? {} : { retryConfig: { retries: settings.socketRetries } };
  const ping = settings.clientPingTimeoutMs === undefined ? {} : { clientPingTimeout: settings.clientPingTimeoutMs };
  const appToken = settings.appToken ?? '';
  const receiver = new SocketModeReceiver({
    appToken,
    logger,
    logLevel: LogLevel.WARN,
    ...ping,
    installerOptions: { clientOptions: { ...url, ...socketRetry } },
  });
  receiver.client.on('connected', () => hooks.setState('connected'));
  receiver.client.on('reconnecting', () => hooks.setState('reconnecting'));
  receiver.client.on('disconnected', () => hooks.setState('reconnecting'));
  hooks.history.watch(receiver.client);
  return receiver;
}
