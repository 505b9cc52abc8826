/** End-to-end harness: fake Slack + fake LLM + real stores, agent runtime, Slack adapter (bolt) and gateway. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createSlackAdapter } from '../../src/channels/slack/index.js';
import { loadConfig, type Config } from '../../src/config/index.js';
import { createGateway, type Gateway } from '../../src/gateway/index.js';
import { createAgentRuntime, type AgentRuntime } from '../../src/main-agent.js';
import { generateApiToken, hashApiToken } from '../../src/shared/api-token.js';
import { createSilentLogger } from '../../src/shared/logger.js';
import { createTestStores, type TestStores } from '../helpers/test-stores.js';
import { startFakeLlmServer, type FakeLlmServer } from './fake-llm-server.js';
import { BOT_USER_ID, FakeSlack, type FakeSlackMessage, type FakeSlackUser } from './fake-slack.js';

export const CHANNEL = 'C0001';

export interface SlackHarnessOptions {
  editIntervalMs?: number;
  flags?: Record<string, unknown>;
}

export class SlackHarness {
  gateway!: Gateway;
  runtime!: AgentRuntime;
  config!: Config;
  private controller = new AbortController();

  private constructor(
    readonly fake: FakeSlack,
    readonly llm: FakeLlmServer,
    readonly db: TestStores,
    private readonly dir: string,
    private readonly options: SlackHarnessOptions,
  ) {}

  static async start(options: SlackHarnessOptions = {}): Promise<SlackHarness> {
    const [fake, llm, db] = await Promise.all([FakeSlack.start(), startFakeLlmServer(), createTestStores()]);
    const dir = mkdtempSync(join(tmpdir(), 'sandpiper-slack-'));
    const harness = new SlackHarness(fake, llm, db, dir, options);
    await harness.boot();
    return harness;
  }

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
        'slack.bot_token': this.fake.botToken,
        'slack.app_token': this.fake.appToken,
        'slack.api_url': this.fake.apiUrl,
        ...this.options.flags,
      },
    });
    const logger = createSilentLogger();
    this.runtime = await createAgentRuntime(this.config, this.db.stores, logger, { evictIntervalMs: 0 });
    const adapter = createSlackAdapter(this.config.slack, logger, { webRetries: 0, socketRetries: 0 });
    this.gateway = createGateway({
      config: this.config, adapters: [adapter], manager: this.runtime.manager, stores: this.db.stores, logger,
      options: { editIntervalMs: this.options.editIntervalMs ?? 100, typingIntervalMs: 60_000 },
    });
    await this.gateway.start(this.controller.signal);
    if (this.gateway.status().adapters.slack !== 'connected') throw new Error('slack adapter did not connect');
  }

  /** A Slack user linked to a new Sandpiper user. */
  async linkedUser(id: string, name: string, options: { isAdmin?: boolean } = {}): Promise<{ user: FakeSlackUser; userId: string }> {
    const created = await this.db.stores.users.createUser(name, options);
    await this.db.stores.users.link('slack', id, created.userId);
    return { user: this.fake.user(id, name), userId: created.userId };
  }

  /** A plain API token for a user (as `sandpiper token create` prints it). */
  async tokenFor(userId: string): Promise<string> {
    const token = generateApiToken();
    await this.db.stores.users.createToken({ userId, tokenHash: hashApiToken(token), scopes: ['read', 'write'], expires: null });
    return token;
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

  /** Plain-text bot replies (no blocks) in a thread. */
  textReplies(threadTs: string, channel = CHANNEL): FakeSlackMessage[] {
    return this.botReplies(threadTs, channel).filter((m) => m.blocks.length === 0 && m.text.length > 0);
  }

  /** Approval / plan cards in a thread (messages whose blocks carry our `sp:` buttons or a decided card). */
  cards(threadTs: string): FakeSlackMessage[] {
    return this.botReplies(threadTs).filter((m) => /Tool Approval Required|Plan Review/.test(JSON.stringify(m.blocks)));
  }

  /** action_id of the button labelled `label` on a message. */
  button(message: FakeSlackMessage, label: string): string | undefined {
    return this.fake.state.buttons(message).find((b) => b.text?.text === label)?.action_id;
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
