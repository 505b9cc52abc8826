/** End-to-end harness: fake Slack + fake LLM + real stores, agent runtime, Slack adapter (bolt) and gateway. */
import { createSlackAdapter, type SlackAdapterOptions } from '../../src/channels/slack/index.js';
import type { Config } from '../../src/config/index.js';
import type { Logger } from '../../src/shared/logger.js';
import { ChannelHarness, launchHarness, type ChannelHarnessOptions } from './channel-harness.js';
import { BOT_USER_ID, FakeSlack, type FakeSlackMessage, type FakeSlackUser } from './fake-slack.js';

export const CHANNEL = 'C0001';

export interface SlackHarnessOptions extends ChannelHarnessOptions {
  /** Adapter tuning (fault tests shorten Socket Mode's reconnect delay). */
  adapterOptions?: Pick<SlackAdapterOptions, 'clientPingTimeoutMs'>;
}

export class SlackHarness extends ChannelHarness<FakeSlack, FakeSlackUser> {
  protected readonly platform = 'slack';

  static start(options: SlackHarnessOptions = {}): Promise<SlackHarness> {
    return launchHarness(() => FakeSlack.start(), 'sandpiper-slack-', (parts) => new SlackHarness(parts, options));
  }

  protected fakeFlags(): Record<string, unknown> {
    return { 'slack.bot_token': this.fake.botToken, 'slack.app_token': this.fake.appToken, 'slack.api_url': this.fake.apiUrl };
  }

  protected createAdapter(config: Config, logger: Logger): ReturnType<typeof createSlackAdapter> {
    return createSlackAdapter(config.slack, logger, { webRetries: 0, socketRetries: 0, ...(this.options as SlackHarnessOptions).adapterOptions });
  }

  override async boot(): Promise<void> {
    await super.boot();
    if (this.gateway.status().adapters.slack !== 'connected') throw new Error('slack adapter did not connect');
  }

  protected override async platformDisconnected(): Promise<void> {
    await this.fake.waitFor(() => this.fake.connected === 0, 10_000, 'the Socket Mode connection to close');
  }

  /** Mentions the bot in the channel; the thread is the user's message, so its ts is the thread ts. */
  mention(user: FakeSlackUser, text: string): { message: FakeSlackMessage; threadTs: string; envelopes: string[] } {
    const { message, envelopes } = this.fake.userMessage(user, CHANNEL, `<@${BOT_USER_ID}> ${text}`);
    return { message, threadTs: message.ts, envelopes };
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
