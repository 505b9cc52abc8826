/** End-to-end harness: fake Slack + fake LLM + real stores, agent runtime, Slack adapter (bolt) and gateway. */
import { createSlackAdapter, type SlackAdapterOptions } from '../../src/channels/slack/index.js';
import type { Config } from '../../src/config/index.js';
import type { Logger } from '../../src/shared/logger.js';
import { ChannelHarness, launchHarness, type ChannelHarnessOptions } from './channel-harness.js';
import { BOT_USER_ID, FakeSlack, type FakeSlackMessage, type FakeSlackUser } from './fake-slack.js';
import { FakeSlackHttp } from './fake-slack-http.js';
import { sessionStoppedPayload } from './fake-slack-sessions.js';
import { Hono } from 'hono';
import { slackInstallations, slackTokenCipher } from '../../src/main-slack.js';
import type { ChannelAdapter } from '../../src/channels/channel-adapter.js';
import { startHttpServer, type RunningHttpServer } from '../../src/gateway/http/http-server.js';
import { createSlackEventsRoutes, slackEventsTarget } from '../../src/gateway/http/routes/slack-events.js';

export const CHANNEL = 'C0001';

export interface SlackHarnessOptions extends ChannelHarnessOptions {
  /** Adapter tuning (fault tests shorten Socket Mode's reconnect delay). */
  adapterOptions?: Pick<SlackAdapterOptions, 'clientPingTimeoutMs'>;
  /** slack.mode = "http": the fake POSTs signed requests to `POST /slack/events` on a gateway HTTP server. */
  http?: boolean;
  /** Installs in many workspaces (slack.client_id, implies `http`): no bot token; workspaces install through the OAuth flow. */
  installs?: boolean;
}

export const TOKEN_KEY = 'fake-slack-token-key-0123456789';

export const SIGNING_SECRET = 'fake-signing-secret-0123456789';

export class SlackHarness extends ChannelHarness<FakeSlack, FakeSlackUser> {
  protected readonly platform = 'slack';

  static start(options: SlackHarnessOptions = {}): Promise<SlackHarness> {
    return launchHarness(
      () => FakeSlack.start(),
      'sandpiper-slack-',
      (parts) => new SlackHarness(parts, options),
    );
  }

  private slackAdapter: ChannelAdapter | undefined;
  private server: RunningHttpServer | undefined;

  private get httpMode(): boolean {
    return (this.options as SlackHarnessOptions).http === true || this.installsMode;
  }

  private get installsMode(): boolean {
    return (this.options as SlackHarnessOptions).installs === true;
  }

  /** The gateway's HTTP server (HTTP mode): `/slack/events`, `/slack/install`, `/slack/oauth_redirect`. */
  get serverUrl(): string {
    if (!this.server) throw new Error('slack harness: no HTTP server (not in HTTP mode)');
    return this.server.url;
  }

  protected fakeFlags(): Record<string, unknown> {
    const delivery = this.httpMode
      ? { 'slack.mode': 'http', 'slack.signing_secret': SIGNING_SECRET }
      : { 'slack.app_token': this.fake.appToken };
    const token = this.installsMode
      ? {
          'slack.client_id': this.fake.oauth.clientId,
          'slack.client_secret': this.fake.oauth.clientSecret,
          'slack.token_key': TOKEN_KEY,
          'gateway.public_url': this.serverUrl,
        }
      : { 'slack.bot_token': this.fake.botToken };
    return { ...token, 'slack.api_url': this.fake.apiUrl, ...delivery };
  }

  protected createAdapter(config: Config, logger: Logger): ReturnType<typeof createSlackAdapter> {
    const installations = this.installsMode
      ? {
          installations: {
            store: slackInstallations(this.db.stores.slackInstalls, slackTokenCipher(config.slack)),
            publicUrl: config.gateway.public_url ?? '',
          },
        }
      : {};
    this.slackAdapter = createSlackAdapter(config.slack, logger, {
      webRetries: 0,
      socketRetries: 0,
      ...installations,
      ...(this.options as SlackHarnessOptions).adapterOptions,
    });
    return this.slackAdapter;
  }

  override async boot(): Promise<void> {
    if (this.httpMode && !this.server) {
      // The gateway's routes, on a server of its own (the harness runs no main()): they answer with the current adapter.
      const app = new Hono().route(
        '/',
        createSlackEventsRoutes(() => slackEventsTarget(this.slackAdapter)),
      );
      this.server = await startHttpServer(app, '127.0.0.1', 0);
      this.fake.http = new FakeSlackHttp(`${this.server.url}/slack/events`, SIGNING_SECRET);
    }
    await super.boot();
    if (this.gateway.status().adapters.slack !== 'connected') throw new Error('slack adapter did not connect');
  }

  override async close(): Promise<void> {
    await this.fake.http?.settled();
    await super.close();
    await this.server?.close(1_000);
  }

  protected override async platformDisconnected(): Promise<void> {
    if (this.httpMode) return;
    await this.fake.waitFor(() => this.fake.connected === 0, 10_000, 'the Socket Mode connection to close');
  }

  /** Mentions the bot in the channel; the thread is the user's message, so its ts is the thread ts. */
  mention(user: FakeSlackUser, text: string): { message: FakeSlackMessage; threadTs: string; envelopes: string[] } {
    const { message, envelopes } = this.fake.userMessage(user, CHANNEL, `<@${BOT_USER_ID}> ${text}`);
    return { message, threadTs: message.ts, envelopes };
  }

  /**
   * A click on the thread's agent-session Stop button: as Slack does, the app's open streams in the thread stop at once
   * (listed in `streaming_message_ts`) and `agent_session_stopped` is sent. Returns the delivery id.
   */
  sessionStop(user: FakeSlackUser, threadTs: string, channel = CHANNEL): string {
    const streaming = this.botReplies(threadTs, channel).filter((message) => this.fake.streams.isOpen(message));
    for (const message of streaming) this.fake.streams.expire(message);
    return this.fake.send(
      'events_api',
      sessionStoppedPayload(
        user.id,
        channel,
        threadTs,
        streaming.map((message) => message.ts),
      ),
      false,
    );
  }

  /** Bot replies in a thread, oldest first. */
  botReplies(threadTs: string, channel = CHANNEL): FakeSlackMessage[] {
    return this.fake.state.thread(channel, threadTs).filter((m) => m.user === BOT_USER_ID);
  }

  /** Plain-text bot replies in a thread: no blocks, or the live message of a running turn (its text and the Stop button). */
  textReplies(threadTs: string, channel = CHANNEL): FakeSlackMessage[] {
    const live = (m: FakeSlackMessage): boolean => m.blocks.some((block) => block.block_id === 'sp_stop');
    return this.botReplies(threadTs, channel).filter((m) => (m.blocks.length === 0 || live(m)) && m.text.length > 0);
  }

  /** Approval / plan cards in a thread (messages whose blocks carry our `sp:` buttons or a decided card). */
  cards(threadTs: string): FakeSlackMessage[] {
    return this.botReplies(threadTs).filter((m) => /Tool Approval Required|Plan Review/.test(JSON.stringify(m.blocks)));
  }

  /** action_id of the button labelled `label` on a message. */
  button(message: FakeSlackMessage, label: string): string | undefined {
    return this.fake.state.buttons(message).find((b) => b.text?.text === label)?.action_id;
  }
}
