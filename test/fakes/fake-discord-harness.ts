/** End-to-end harness: fake Discord + fake LLM + real stores, agent runtime, Discord adapter and gateway. */
import { createDiscordAdapter, type DiscordAdapterOptions } from '../../src/channels/discord/index.js';
import type { Config } from '../../src/config/index.js';
import type { Logger } from '../../src/shared/logger.js';
import { ChannelHarness, launchHarness, type ChannelHarnessOptions } from './channel-harness.js';
import { FakeDiscord, type FakeMessage, type FakeUser } from './fake-discord.js';

export const CHANNEL_ID = '300000000000000001';

export interface HarnessOptions extends ChannelHarnessOptions {
  /** Text channels the fake guild has (default: just CHANNEL_ID). */
  channelIds?: string[];
  /** Adapter tuning (fault tests turn the 5 s identify throttle off). */
  adapterOptions?: DiscordAdapterOptions;
}

export class DiscordHarness extends ChannelHarness<FakeDiscord, FakeUser> {
  protected readonly platform = 'discord';

  static start(options: HarnessOptions = {}): Promise<DiscordHarness> {
    const startFake = (): Promise<FakeDiscord> =>
      FakeDiscord.start(options.channelIds ? { channelIds: options.channelIds } : {});
    return launchHarness(startFake, 'sandpiper-discord-', (parts) => new DiscordHarness(parts, options));
  }

  protected fakeFlags(): Record<string, unknown> {
    return { 'discord.token': this.fake.token, 'discord.api_url': this.fake.apiUrl };
  }

  protected createAdapter(config: Config, logger: Logger): ReturnType<typeof createDiscordAdapter> {
    return createDiscordAdapter(config.discord, logger, (this.options as HarnessOptions).adapterOptions);
  }

  protected override async platformDisconnected(): Promise<void> {
    await this.fake.waitFor(() => this.fake.gateway.connected === 0, 10_000, 'the gateway connection to close');
  }

  /** Mentions the bot in the test channel and waits for the thread the bot opened from that message. */
  async mention(user: FakeUser, text: string): Promise<{ message: FakeMessage; threadId: string }> {
    const message = this.fake.state.injectMessage(CHANNEL_ID, user, text, true);
    await this.fake.waitFor(() => this.fake.state.channels.get(message.id), 15_000, 'thread creation');
    return { message, threadId: message.id };
  }

  /** Bot messages in a thread, oldest first. */
  botMessages(threadId: string): FakeMessage[] {
    return this.fake.state.messagesIn(threadId).filter((m) => m.author.id === this.fake.state.bot.id);
  }

  /** Plain-text bot messages (no embeds) in a thread. */
  textMessages(threadId: string): FakeMessage[] {
    return this.botMessages(threadId).filter((m) => m.embeds.length === 0 && m.content.length > 0);
  }

  /** The approval card in a thread (the message with Approve/Always/Reject buttons). */
  cards(threadId: string): FakeMessage[] {
    return this.botMessages(threadId).filter(
      (m) => JSON.stringify(m.embeds).includes('Approval') || JSON.stringify(m.embeds).includes('Plan Review'),
    );
  }

  /** custom_id of the button labelled `label` on a message. */
  button(message: FakeMessage, label: string): string | undefined {
    for (const row of message.components as { components?: { label?: string; custom_id?: string }[] }[]) {
      const found = row.components?.find((component) => component.label === label);
      if (found?.custom_id) return found.custom_id;
    }
    return undefined;
  }
}
