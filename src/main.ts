/** Composition root: builds storage, HTTP, registry, agent, MCP and channel adapters from a Config; starts and stops them. */
import type { Config } from './config/index.js';
import { createHttpApp } from './gateway/http/app.js';
import { startHttpServer, type RunningHttpServer } from './gateway/http/http-server.js';
import { createHttpMetrics } from './gateway/http/metrics.js';
import { EMPTY_MCP_HEALTH } from './gateway/http/routes/health.js';
import { registerService, type ServiceRegistration } from './gateway/registry.js';
import type { Logger } from './shared/logger.js';
import { openStorage, type OpenStorage } from './storage-open.js';

export interface RunningGateway {
  httpUrl: string;
  /** Stops everything in reverse order of start; safe to call twice. */
  stop(): Promise<void>;
}

/** Starts the gateway: migrations, HTTP (so /health answers early), registry, then the agent and channels. */
export async function startGateway(config: Config, logger: Logger): Promise<RunningGateway> {
  const stoppers: Array<() => Promise<void>> = [];
  const stopAll = once(async () => {
    for (const stop of stoppers.reverse()) {
      await stop().catch((error: unknown) => logger.error({ err: error }, 'shutdown.step_failed'));
    }
  });
  try {
    const storage: OpenStorage = await openStorage(config, logger);
    stoppers.push(() => storage.close());
    const metrics = createHttpMetrics();
    const app = createHttpApp({
      logger,
      metrics,
      health: { adapters: () => ({}), mcp: () => EMPTY_MCP_HEALTH },
    });
    const server: RunningHttpServer = await startHttpServer(app, config.gateway.http_host, config.gateway.http_port);
    stoppers.push(() => server.close());
    logger.info({ url: server.url }, `http listening on ${server.url}`);
    const registration: ServiceRegistration = await registerService({
      services: storage.stores.services,
      url: config.gateway.advertise_url ?? server.url,
      logger,
    });
    stoppers.push(() => registration.stop());
    logEnabledComponents(config, logger);
    return { httpUrl: server.url, stop: stopAll };
  } catch (error) {
    await stopAll();
    throw error;
  }
}

function logEnabledComponents(config: Config, logger: Logger): void {
  const models = Object.keys(config.models);
  if (models.length === 0) logger.warn('no model configured: add a [models.<alias>] table to talk to an LLM');
  else logger.info({ models, default: config.agent.default_model }, 'agent enabled');
  const adapters: string[] = [];
  if (config.discord.token) adapters.push('discord');
  if (config.slack.bot_token && config.slack.app_token) adapters.push('slack');
  if (adapters.length === 0) {
    logger.warn('no channel adapter is configured (set discord.token or slack.bot_token + slack.app_token); serving HTTP only');
  }
}

function once(fn: () => Promise<void>): () => Promise<void> {
  let running: Promise<void> | undefined;
  return () => (running ??= fn());
}
