/** End-to-end harness: fake Discord + fake LLM + real stores, agent runtime, Discord adapter and gateway. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createDiscordAdapter } from '../../src/channels/discord/index.js';
import { loadConfig, type Config } from '../../src/config/index.js';
import { createGateway, type Gateway } from '../../src/gateway/index.js';
import { createAgentRuntime, type AgentRuntime } from '../../src/main-agent.js';
import { generateApiToken, hashApiToken } from '../../src/shared/api-token.js';
import { createSilentLogger } from '../../src/shared/logger.js';
import { createTestStores, type TestStores } from '../helpers/test-stores.js';
import { startFakeLlmServer, type FakeLlmServer } from './fake-llm-server.js';
import { FakeDiscord, type FakeMessage, type FakeUser } from './fake-discord.js';

export const CHANNEL_ID = '300000000000000001';

export interface HarnessOptions {
  editIntervalMs?: number;
  flags?: Record<string, unknown>;
}

export class DiscordHarness {
  gateway!: Gateway;
  runtime!: AgentRuntime;
  config!: Config;
  private controller = new AbortController();

  private constructor(
    readonly fake: FakeDiscord,
    readonly llm: FakeLlmServer,
    readonly db: TestStores,
    private readonly dir: string,
    private readonly options: HarnessOptions,
  ) {}

  static async start(options: HarnessOptions = {}): Promise<DiscordHarness> {
    const [fake, llm, db] = await Promise.all([FakeDiscord.start(), startFakeLlmServer(), createTestStores()]);
    const dir = mkdtempSync(join(tmpdir(), 'sandpiper-discord-'));
    const harness = new DiscordHarness(fake, llm, db, dir, options);
    await harness.boot();
    return harness;
  }

  /** Builds and starts runtime, adapter and gateway against the same fakes and database. */
  async boot(): Promise<void> {
    this.controller = new AbortController();
    this.config = loadConfig({
      cwd: this.dir,
      env: {},
      flags: {
        'gateway.data_dir': this.dir,
        'models.fake.provider': 'openai',
        'models.fake.base_url': this.llm.url,
        'models.fake.api_key': 'test-key',
        'models.fake.model': 'fake-model',
        'discord.token': this.fake.token,
        'discord.api_url': this.fake.apiUrl,
        ...this.options.flags,
      },
    });
    const logger = createSilentLogger();
    this.runtime = await createAgentRuntime(this.config, this.db.stores, logger, { evictIntervalMs: 0 });
    const adapter = createDiscordAdapter(this.config.discord, logger);
    this.gateway = createGateway({
      config: this.config, adapters: [adapter], manager: this.runtime.manager, stores: this.db.stores, logger,
      options: { editIntervalMs: this.options.editIntervalMs ?? 100, typingIntervalMs: 60_000 },
    });
    await this.gateway.start(this.controller.signal);
  }

  /** Stops gateway and runtime as a killed process would lose them (the database and the fakes survive). */
  async crash(): Promise<void> {
    await this.gateway.stop();
    await this.runtime.close();
  }

  /** A Discord user linked to a new Sandpiper user; returns the user id. */
  async linkedUser(id: string, name: string, options: { isAdmin?: boolean } = {}): Promise<{ user: FakeUser; userId: string }> {
    const created = await this.db.stores.users.createUser(name, options);
    await this.db.stores.users.link('discord', id, created.userId);
    return { user: this.fake.user(id, name), userId: created.userId };
  }

  /** A plain API token for a user (as `sandpiper token create` prints it). */
  async tokenFor(userId: string, expires: string | null = null): Promise<string> {
    const token = generateApiToken();
    await this.db.stores.users.createToken({ userId, tokenHash: hashApiToken(token), scopes: ['read', 'write'], expires });
    return token;
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
    return this.botMessages(threadId).filter((m) => JSON.stringify(m.embeds).includes('Approval') || JSON.stringify(m.embeds).includes('Plan Review'));
  }

  /** custom_id of the button labelled `label` on a message. */
  button(message: FakeMessage, label: string): string | undefined {
    for (const row of message.components as { components?: { label?: string; custom_id?: string }[] }[]) {
      const found = row.components?.find((component) => component.label === label);
      if (found?.custom_id) return found.custom_id;
    }
    return undefined;
  }

  async close(): Promise<void> {
    try {
      await this.gateway.stop();
      await this.runtime.close();
    } finally {
      await Promise.allSettled([this.fake.close(), this.llm.close(), this.db.close()]);
      rmSync(this.dir, { recursive: true, force: true });
    }
  }
}
