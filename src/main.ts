/** Composition root: builds storage, HTTP, registry, MCP, the agent and channel adapters from a Config; starts and stops them. */
import type { McpManager } from './agent/mcp/mcp-manager.js';
import type { McpFanout } from './gateway/cluster/mcp-fanout.js';
import type { ChannelAdapter } from './channels/channel-adapter.js';
import type { SlackAdapterOptions } from './channels/slack/index.js';
import type { Config } from './config/index.js';
import { createHttpApp, type HttpAppDeps } from './gateway/http/app.js';
import { adminListenAddress, isLoopbackHost } from './gateway/admin/admin-listen.js';
import { createAdminElsewhereRoutes } from './gateway/http/routes/admin-elsewhere.js';
import { startHttpServer } from './gateway/http/http-server.js';
import { createSlackEventsRoutes, slackEventsTarget } from './gateway/http/routes/slack-events.js';
import { createHttpMetrics } from './gateway/http/metrics.js';
import { createCoordination, instanceStaleAfterSeconds } from './main-coordination.js';
import type { Coordination } from './gateway/cluster/coordination.js';
import { createAdminRoutes } from './gateway/http/routes/admin.js';
import { createAdminMcpRoutes } from './gateway/http/routes/admin-mcp.js';
import { createConsoleParts } from './main-console.js';
import { createOAuthCallbackRoutes } from './gateway/http/routes/oauth-callback.js';
import { HttpError } from './gateway/http/http-errors.js';
import { EMPTY_MCP_HEALTH } from './gateway/http/routes/health.js';
import { createNotifyRoutes } from './gateway/http/routes/notify.js';
import type { Gateway } from './gateway/index.js';
import { newServiceId, registerService } from './gateway/registry.js';
import type { AgentRuntime } from './main-agent.js';
import { createNotifyParts, type NotifyParts } from './main-notify.js';
import type { ToolContainment } from './agent/tools/index.js';
import type { Logger } from './shared/logger.js';
import { setTelemetrySink } from './shared/telemetry.js';
import { createChannelTelemetry, type ChannelTelemetry } from './gateway/channel-telemetry.js';
import { createTelemetryMetrics } from './gateway/http/telemetry-metrics.js';
import { openStorage } from './storage-open.js';
import { lockSqliteInstance } from './storage/instance-lock.js';
import type { Stores } from './storage/stores.js';

export interface RunningGateway {
  httpUrl: string;
  /** The admin API's own listener (`admin.listen`), undefined while `auth.admin_secret` is unset (ADR 0035). */
  adminUrl: string | undefined;
  /** Resolves when every adapter has connected or failed (tests wait on it). */
  ready: Promise<void>;
  /** Stops everything in reverse order of start; safe to call twice. */
  stop(): Promise<void>;
}

/** Late-bound parts the HTTP routes read, so /health answers before the agent and channels are up. */
export interface LiveParts {
  gateway?: Gateway;
  mcp?: McpManager;
  /** In a cluster: MCP controls applied on every live instance (ADR 0050). */
  mcpFanout?: McpFanout;
  runtime?: AgentRuntime;
  containment?: ToolContainment;
  adapters: ChannelAdapter[];
  channelTelemetry: ChannelTelemetry;
}

export class ShutdownStack {
  private readonly steps: Array<{ name: string; run: () => Promise<void> }> = [];
  private running: Promise<void> | undefined;
  constructor(private readonly logger: Logger) {}
  push(name: string, run: () => Promise<void>): void {
    this.steps.push({ name, run });
  }
  /** True once the stop has begun: a part the start-up would start later (after `ready`) is not started then. */
  get stopping(): boolean {
    return this.running !== undefined;
  }
  /** Runs the steps newest first; a failing step is logged and the rest still run. */
  unwind(): Promise<void> {
    this.running ??= (async () => {
      for (const step of [...this.steps].reverse()) {
        await step
          .run()
          .catch((error: unknown) => this.logger.error({ err: error, step: step.name }, 'shutdown step failed'));
      }
    })();
    return this.running;
  }
}

/** Starts the gateway: migrations, HTTP (so /health answers early), registry, MCP, the agent, then the channels. */
export async function startGateway(config: Config, logger: Logger): Promise<RunningGateway> {
  const stack = new ShutdownStack(logger);
  try {
    // The OpenTelemetry SDK loads only when an endpoint is configured; otherwise the API calls stay no-ops.
    const tracing =
      config.telemetry.otlp_endpoint === undefined
        ? undefined
        : (await import('./main-telemetry.js')).startTracing(config, logger);
    if (tracing) stack.push('tracing', () => tracing.shutdown());
    // SQLite is single-instance: a second start on the same file stops here, before migrations and HTTP (ADR 0023).
    const instanceId = newServiceId();
    const lock = await lockSqliteInstance(config.database.url, instanceId);
    if (lock) stack.push('instance lock', () => lock.release());
    const storage = await openStorage(config, logger);
    stack.push('storage', () => storage.close());
    const channelTelemetry = createChannelTelemetry();
    // Single instance or cluster (ADR 0052): shard ownership, identify pacing, placement and dedup follow from it.
    const coordination = createCoordination(config, storage.stores, instanceId);
    const adapters = await createAdapters(config, logger, coordination, storage.stores);
    const live: LiveParts = { adapters: adapters.map((adapter) => channelTelemetry.wrap(adapter)), channelTelemetry };
    const notify = createNotifyParts(config, storage.stores, live.adapters, logger);
    const { httpUrl, adminUrl } = await startHttp(config, logger, storage.stores, live, stack, notify);
    const url = config.gateway.advertise_url ?? httpUrl;
    const registration = await registerService({
      services: storage.stores.services,
      url,
      logger,
      serviceId: instanceId,
      ...coordination.registration(),
    });
    stack.push('registry', () => registration.stop());
    // The agent, the tools and MCP load only now: /health answers (start-up readiness) without waiting for them.
    const { startAgentAndChannels } = await import('./main-runtime.js');
    const { ready } = await startAgentAndChannels({
      config,
      logger,
      stores: storage.stores,
      live,
      stack,
      coordination,
      httpUrl,
    });
    // Outbox rows a previous process accepted but never sent are delivered once the channels are up.
    stack.push('notify outbox', () => notify.worker.stop());
    void ready.then(() => {
      if (!stack.stopping) notify.worker.start();
    });
    return { httpUrl, adminUrl, ready, stop: () => stack.unwind() };
  } catch (error) {
    await stack.unwind();
    throw error;
  }
}

/** The configured adapters; a platform's SDK (discord.js, bolt) is imported only when that platform is configured. */
async function createAdapters(
  config: Config,
  logger: Logger,
  coordination: Coordination,
  stores: Stores,
): Promise<ChannelAdapter[]> {
  const adapters: ChannelAdapter[] = [];
  if (config.discord.token) {
    const cluster = coordination.discordSharding();
    const identify = (maxConcurrency: number) => coordination.identifyThrottle(maxConcurrency);
    adapters.push(
      (await import('./channels/discord/index.js')).createDiscordAdapter(config.discord, logger, {
        identify,
        ...(cluster ? { cluster } : {}),
      }),
    );
  }
  const slackInstalls = config.slack.client_id !== undefined && config.slack.mode === 'http';
  if ((config.slack.bot_token && (config.slack.app_token || config.slack.mode === 'http')) || slackInstalls) {
    const options = slackInstalls ? await slackInstallOptions(config, stores) : {};
    adapters.push((await import('./channels/slack/index.js')).createSlackAdapter(config.slack, logger, options));
  }
  if (adapters.length === 0) {
    logger.warn(
      'no channel adapter is configured (set discord.token, or slack.bot_token and slack.app_token); serving HTTP only',
    );
  }
  return adapters;
}

/** Installs in many workspaces: the installation store (tokens encrypted with slack.token_key) and the public URL. */
async function slackInstallOptions(config: Config, stores: Stores): Promise<SlackAdapterOptions> {
  const { slackInstallations, slackTokenCipher } = await import('./main-slack.js');
  const publicUrl = config.gateway.public_url ?? '';
  return {
    installations: { store: slackInstallations(stores.slackInstalls, slackTokenCipher(config.slack)), publicUrl },
  };
}

async function startHttp(
  config: Config,
  logger: Logger,
  stores: Stores,
  live: LiveParts,
  stack: ShutdownStack,
  notify: NotifyParts,
): Promise<{ httpUrl: string; adminUrl: string | undefined }> {
  const jwt = { secret: config.auth.jwt_secret, audience: config.auth.jwt_audience };
  const metrics = createHttpMetrics({
    workstreams: () => live.runtime?.manager.stats() ?? { active: 0, running: 0 },
    subscriptions: () => live.gateway?.status().workstreams ?? 0,
  });
  setTelemetrySink(
    createTelemetryMetrics(metrics.registry, {
      approvalsPending: async () => (await stores.approvals.listPending()).length,
      queueDepth: () => live.channelTelemetry.queueDepth(),
    }),
  );
  stack.push('metrics', async () => setTelemetrySink(undefined));
  const health = {
    adapters: () =>
      live.gateway?.status().adapters ??
      Object.fromEntries(live.adapters.map((adapter) => [adapter.platform, adapter.state()])),
    mcp: () => live.mcp?.status() ?? EMPTY_MCP_HEALTH,
    // Until the runtime has detected it, no process tool can run: never report "off" (unconfined) before that.
    sandbox: () => live.containment?.sandbox.kind ?? 'unavailable',
  };
  // The admin API is never served here: this listener may face the network (the container binds 0.0.0.0).
  const slackEvents = createSlackEventsRoutes(() =>
    slackEventsTarget(live.adapters.find((adapter) => adapter.platform === 'slack')),
  );
  const oauthCallback = createOAuthCallbackRoutes({
    complete: (state, code) =>
      live.mcp?.completeAuthorization(state, code) ??
      Promise.resolve({ ok: false, status: 400, message: 'MCP is not running yet; try the link again shortly.' }),
    decline: async (state) => live.mcp?.declineAuthorization(state),
  });
  const routers = [
    createNotifyRoutes({ jwt, users: stores.users, ...notify.deps }),
    createAdminElsewhereRoutes(config),
    slackEvents,
    oauthCallback,
  ];
  const app = createHttpApp({ logger, metrics, health, routers });
  const server = await startHttpServer(app, config.gateway.http_host, config.gateway.http_port);
  stack.push('http', () => server.close());
  logger.info({ url: server.url }, `http listening on ${server.url}`);
  const adminUrl = await startAdminHttp(config, logger, stores, live, stack, { metrics, health });
  return { httpUrl: server.url, adminUrl };
}

/** The admin API on its own listener (`admin.listen`, loopback by default), only when `auth.admin_secret` is set. */
async function startAdminHttp(
  config: Config,
  logger: Logger,
  stores: Stores,
  live: LiveParts,
  stack: ShutdownStack,
  shared: Pick<HttpAppDeps, 'metrics' | 'health'>,
): Promise<string | undefined> {
  const adminSecret = config.auth.admin_secret;
  if (!adminSecret) {
    logger.info('admin API off (set auth.admin_secret to serve it on admin.listen)');
    if (config.console.enabled)
      logger.warn('console.enabled is set but the console needs the admin API: set auth.admin_secret');
    return undefined;
  }
  const { host, port } = adminListenAddress(config);
  if (!isLoopbackHost(host))
    logger.warn({ listen: config.admin.listen }, 'the admin API listens on a non-loopback address (admin.listen)');
  const audit = stores.adminAudit;
  const consoleParts = createConsoleParts(config, logger, stores, live, shared.health);
  const app = createHttpApp({
    logger,
    ...shared,
    routers: [
      ...consoleParts.routers,
      createAdminMcpRoutes({
        adminSecret,
        audit,
        logger,
        mcp: {
          status: () => live.mcp?.status() ?? EMPTY_MCP_HEALTH,
          refresh: async (server) =>
            live.mcp ? isKnown(live.mcp, server) && (await live.mcp.refresh(server), true) : false,
          reconnect: async (server) =>
            live.mcp ? isKnown(live.mcp, server) && (await live.mcp.reconnect(server), true) : false,
          reload: async () =>
            live.mcp ? (await import('./main-mcp.js')).reloadMcpServers(config, stores, live.mcp, logger) : undefined,
          fanOut: async (control) => live.mcpFanout?.fanOut(control),
          login: async (server, username) => {
            const user = await stores.users.getUserByUsername(username);
            if (!user || !live.mcp)
              throw new HttpError(404, user ? 'MCP has not started yet' : `no user named ${username.slice(0, 64)}`);
            return live.mcp.startLogin(server, user.userId, AbortSignal.timeout(60_000));
          },
        },
      }),
      createAdminRoutes({ adminSecret, stores, logger, staleAfterSeconds: instanceStaleAfterSeconds(config) }),
    ],
  });
  const server = await startHttpServer(app, host, port);
  stack.push('admin http', () => server.close());
  stack.push('console streams', async () => consoleParts.stop());
  logger.info({ url: server.url }, `admin API listening on ${server.url}`);
  return server.url;
}

function isKnown(mcp: McpManager, server: string | undefined): boolean {
  return server === undefined || mcp.status().perServer.some((entry) => entry.name === server);
}
