/** Shared boot logic of the end-to-end channel harnesses: config from the fakes, agent runtime, adapter, gateway start/stop/crash. */
import { mkdtempSync, rmSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ChannelAdapter } from '../../src/channels/channel-adapter.js';
import { loadConfig, type Config } from '../../src/config/index.js';
import { createGateway, type Gateway } from '../../src/gateway/index.js';
import type { GatewayMcp } from '../../src/gateway/mcp-command.js';
import { mintServiceToken } from '../../src/gateway/http/auth.js';
import { createNotifyRoutes } from '../../src/gateway/http/routes/notify.js';
import { createAdapterNotifySender } from '../../src/gateway/notify-sender.js';
import { createAgentRuntime, type AgentRuntime } from '../../src/main-agent.js';
import { createGatewayWatchRunner } from '../../src/main-watch.js';
import type { WatchRunner } from '../../src/agent/watch/watch-runner.js';
import { generateApiToken, hashApiToken } from '../../src/shared/api-token.js';
import { createSilentLogger, type Logger } from '../../src/shared/logger.js';
import { createTestStores, type TestStores } from '../helpers/test-stores.js';
import { waitFor } from '../helpers/wait-for.js';
import { startFakeLlmServer, type FakeLlmServer } from './fake-llm-server.js';

export interface ChannelHarnessOptions {
  editIntervalMs?: number;
  /** Config flags on top of the ones that point the gateway at the fakes (they win). */
  flags?: Record<string, unknown>;
  /** More model aliases (alias → model name) next to `fake`, served by the same fake LLM. */
  models?: Record<string, string>;
  /** The wire format of the `fake` model (default openai); both are served by the fake LLM. */
  provider?: 'openai' | 'anthropic';
  /** MCP for the in-conversation `/mcp` command (a real manager the test started). */
  mcp?: GatewayMcp;
}

/** What the harness needs of a platform fake. */
export interface ChannelFake<TUser> {
  user(id: string, name: string): TUser;
  close(): Promise<void>;
}

/** The pieces a harness runs against; they survive `crash()` and `boot()`. */
export interface HarnessParts<TFake> {
  fake: TFake;
  llm: FakeLlmServer;
  db: TestStores;
  dir: string;
}

/** Starts the platform fake, the fake LLM and a test database, builds the harness with `create` and boots it. */
export async function launchHarness<TFake, THarness extends { boot(): Promise<void> }>(
  startFake: () => Promise<TFake>,
  dirPrefix: string,
  create: (parts: HarnessParts<TFake>) => THarness,
): Promise<THarness> {
  const [fake, llm, db] = await Promise.all([startFake(), startFakeLlmServer(), createTestStores()]);
  const harness = create({ fake, llm, db, dir: mkdtempSync(join(tmpdir(), dirPrefix)) });
  await harness.boot();
  return harness;
}

/** Fake platform + fake LLM + real stores, agent runtime, one channel adapter and the gateway. */
export abstract class ChannelHarness<TFake extends ChannelFake<TUser>, TUser> {
  gateway!: Gateway;
  runtime!: AgentRuntime;
  config!: Config;
  watchRunner!: WatchRunner;
  readonly fake: TFake;
  readonly llm: FakeLlmServer;
  readonly db: TestStores;
  private readonly dir: string;
  private controller = new AbortController();
  private adapter: ChannelAdapter | undefined;
  /** Added to the gateway's clock: moves it into the future (idle DM conversations, expired notifications). */
  clockOffsetMs = 0;

  protected constructor(
    parts: HarnessParts<TFake>,
    protected readonly options: ChannelHarnessOptions,
  ) {
    this.fake = parts.fake;
    this.llm = parts.llm;
    this.db = parts.db;
    this.dir = parts.dir;
  }

  /** The platform name users are linked under. */
  protected abstract readonly platform: string;
  /** Config flags that point the adapter at the fake. */
  protected abstract fakeFlags(): Record<string, unknown>;
  protected abstract createAdapter(config: Config, logger: Logger): ChannelAdapter;

  /**
   * Resolves once no turn runs in this gateway: after an answer shows, the turn still ends (its last writes), and a
   * person writing "later" writes after that. The manager's state is announced by no fake, so it is polled.
   */
  async turnsEnded(): Promise<void> {
    await waitFor(() => this.runtime.manager.stats().running === 0, 'every turn to end');
  }

  /** The adapter the gateway runs now (a new one after each `boot`). */
  get channel(): ChannelAdapter {
    if (!this.adapter) throw new Error('the harness has not booted');
    return this.adapter;
  }

  /** Builds and starts runtime, adapter and gateway against the same fakes and database. */
  async boot(): Promise<void> {
    this.controller = new AbortController();
    this.config = loadConfig({
      cwd: this.dir,
      env: {},
      flags: {
        'gateway.data_dir': this.dir,
        // Scenarios send many messages from one user within a minute; the limit tests set it back (10 per 60 s).
        'gateway.user_rate_limit': 10_000,
        'models.fake.provider': this.options.provider ?? 'openai',
        'models.fake.base_url': this.options.provider === 'anthropic' ? this.llm.origin : this.llm.url,
        'models.fake.api_key': 'test-key',
        'models.fake.model': 'fake-model',
        ...this.modelFlags(),
        ...this.fakeFlags(),
        ...this.options.flags,
      },
    });
    const logger = createSilentLogger();
    this.runtime = await createAgentRuntime(this.config, this.db.stores, logger, { evictIntervalMs: 0 });
    this.adapter = this.createAdapter(this.config, logger);
    this.gateway = createGateway({
      config: this.config,
      adapters: [this.adapter],
      manager: this.runtime.manager,
      stores: this.db.stores,
      logger,
      ...(this.options.mcp === undefined ? {} : { mcp: this.options.mcp }),
      options: {
        editIntervalMs: this.options.editIntervalMs ?? 100,
        typingIntervalMs: 60_000,
        now: () => Date.now() + this.clockOffsetMs,
      },
    });
    await this.gateway.start(this.controller.signal);
    // As `sandpiper start` does: the watch runner delivers through this gateway (tests drive extra ticks with tick()).
    this.watchRunner = createGatewayWatchRunner(this.config, this.db.stores, this.gateway, logger);
    this.watchRunner.start();
  }

  private modelFlags(): Record<string, unknown> {
    const flags: Record<string, unknown> = {};
    for (const [alias, model] of Object.entries(this.options.models ?? {})) {
      Object.assign(flags, {
        [`models.${alias}.provider`]: 'openai',
        [`models.${alias}.base_url`]: this.llm.url,
        [`models.${alias}.api_key`]: 'test-key',
        [`models.${alias}.model`]: model,
      });
    }
    return flags;
  }

  /** Stops gateway and runtime as a killed process would lose them (the database and the fakes survive). */
  async crash(): Promise<void> {
    await this.watchRunner.stop();
    await this.gateway.stop();
    await this.runtime.close();
    // A positive signal, not the client's word: until the fake has seen the connection close, it would still
    // deliver events (to a client that has gone), so a test writing "while down" would not be writing while down.
    await this.platformDisconnected();
  }

  /** Resolves once the platform fake has no live connection of this app any more (harnesses override it). */
  protected platformDisconnected(): Promise<void> {
    return Promise.resolve();
  }

  /** A platform user linked to a new Sandpiper user. */
  async linkedUser(
    id: string,
    name: string,
    options: { isAdmin?: boolean } = {},
  ): Promise<{ user: TUser; userId: string }> {
    const created = await this.db.stores.users.createUser(name, options);
    await this.db.stores.users.link(this.platform, id, created.userId);
    return { user: this.fake.user(id, name), userId: created.userId };
  }

  /**
   * `POST /v1/api/notify` as the running gateway serves it (the real route, JWT check and sender over this adapter):
   * `target` is `{username}` or `{channel_type, channel_id}`. Resolves with the posted message ids.
   */
  async notify(target: Record<string, string>, message: string, wsId: string): Promise<string[]> {
    const jwt = { secret: 'harness-notify-secret-harness-notify-secret', audience: 'turnstone-channel' };
    const routes = createNotifyRoutes({
      jwt,
      users: this.db.stores.users,
      deliveries: this.db.stores.notifyDeliveries,
      outbox: this.db.stores.notifyOutbox,
      sender: createAdapterNotifySender(this.adapter ? [this.adapter] : []),
      logger: createSilentLogger(),
    });
    const token = await mintServiceToken(jwt);
    const response = await routes.request('/v1/api/notify', {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ target, message, ws_id: wsId }),
    });
    if (response.status !== 200) throw new Error(`notify answered ${response.status}: ${await response.text()}`);
    const { results } = (await response.json()) as { results: Array<{ status: string; message_id?: string }> };
    return results.map((result) => result.message_id ?? `(${result.status})`);
  }

  /** The workstream a thread (or DM) is routed to. */
  async workstreamOf(channelId: string): Promise<string> {
    const route = await this.db.stores.routes.getRoute(this.platform, channelId);
    if (!route) throw new Error(`no route for ${channelId}`);
    return route.wsId;
  }

  /** A plain API token for a user (as `sandpiper token create` prints it). */
  async tokenFor(userId: string, expires: string | null = null): Promise<string> {
    const token = generateApiToken();
    await this.db.stores.users.createToken({
      userId,
      tokenHash: hashApiToken(token),
      scopes: ['read', 'write'],
      expires,
    });
    return token;
  }

  /** A file in the workspace folder of the workstream a thread (route key) is routed to; undefined when missing. */
  async workspaceFile(routeChannelId: string, relative: string): Promise<Buffer | undefined> {
    const route = await this.db.stores.routes.getRoute(this.platform, routeChannelId);
    if (!route) return undefined;
    return readFile(join(this.config.agent.workspace_dir, route.wsId, relative)).catch(() => undefined);
  }

  async close(): Promise<void> {
    try {
      await this.crash();
    } finally {
      await Promise.allSettled([this.fake.close(), this.llm.close(), this.db.close()]);
      rmSync(this.dir, { recursive: true, force: true });
    }
  }
}
