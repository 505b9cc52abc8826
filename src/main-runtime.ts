/** Composition root, second half: the agent runtime, MCP and the gateway wiring, loaded by main.ts once HTTP answers. */
import type { Sandbox } from './agent/sandbox/sandbox.js';
import type { Config } from './config/index.js';
import { createGateway, type Gateway } from './gateway/index.js';
import { createCluster } from './gateway/cluster/create-cluster.js';
import { isClustered } from './gateway/cluster/cluster-mode.js';
import type { LiveParts, ShutdownStack } from './main.js';
import { assembleAgent } from './main-agent.js';
import { createGatewayWatchRunner } from './main-watch.js';
import { startRetention } from './gateway/retention.js';
import type { Logger } from './shared/logger.js';
import type { Stores } from './storage/stores.js';

export interface RuntimeParts {
  config: Config;
  logger: Logger;
  stores: Stores;
  live: LiveParts;
  stack: ShutdownStack;
  /** This instance's id in the registry, and its lease holder id on PostgreSQL (ADR 0021). */
  instanceId: string;
  /** Where the HTTP server listens (its real port when 0 was configured): the tools' egress proxy refuses it. */
  httpUrl?: string;
}

/** Starts MCP (in the background), the agent runtime and the gateway wiring; `ready` settles when the channels are up. */
export async function startAgentAndChannels({ config, logger, stores, live, stack, instanceId, httpUrl }: RuntimeParts): Promise<{ ready: Promise<void> }> {
  const controller = new AbortController();
  stack.push('abort', async () => controller.abort());
  // MCP servers connect in the background: a slow server never delays the channels.
  const { runtime, mcp, containment } = await assembleAgent(config, stores, logger, {
    connectMcp: 'background',
    signal: controller.signal,
    ...(httpUrl === undefined ? {} : { httpPort: Number(new URL(httpUrl).port) }),
  });
  live.containment = containment;
  live.mcp = mcp;
  stack.push('mcp', () => mcp.shutdown());
  live.runtime = runtime;
  // On PostgreSQL a workstream runs on the one instance holding its lease (ADR 0021); leases go back after the agent stopped.
  const cluster = isClustered(config) ? createCluster({ config, stores, logger, instanceId, inner: runtime.manager }) : undefined;
  if (cluster) stack.push('cluster leases', () => cluster.node.releaseOnStop());
  stack.push('agent', () => runtime.close());
  logModels(config, logger);
  // The MCP manager's elicitation requests become form cards in the thread of the workstream that triggered them; its
  // OAuth sign-in links go to the caller privately, and the waiting call shows as a card with Cancel in that thread.
  const manager = cluster?.manager ?? runtime.manager;
  const gateway = createGateway({ config, adapters: live.adapters, manager, stores, logger, elicitations: mcp, authorizations: mcp, mcp, instanceId });
  live.gateway = gateway;
  stack.push('gateway', () => gateway.stop());
  cluster?.attach(gateway);
  if (cluster) stack.push('cluster', () => cluster.node.stop());
  const ready = gateway.start(controller.signal).catch((error: unknown) => logger.error({ err: error }, 'channel start failed'));
  if (cluster) void ready.then(() => cluster.node.start()).catch((error: unknown) => logger.error({ err: error }, 'cluster start failed'));
  startWatchRunner(config, logger, stores, gateway, stack, containment.sandbox);
  // Old conversations, folders and delivery records go hourly (gateway.retention_days, ADR 0046).
  const retention = startRetention({ lifecycle: stores.lifecycle, workspaceDir: config.agent.workspace_dir, retentionDays: config.gateway.retention_days, notifyReplyDays: config.gateway.notify_reply_days, logger });
  stack.push('retention', async () => clearInterval(retention));
  return { ready };
}

/** Watch results go through the gateway, so the turns they start render into their threads. */
function startWatchRunner(config: Config, logger: Logger, stores: Stores, gateway: Gateway, stack: ShutdownStack, sandbox: Sandbox): void {
  const runner = createGatewayWatchRunner(config, stores, gateway, logger, sandbox);
  runner.start();
  stack.push('watch runner', () => runner.stop());
}

function logModels(config: Config, logger: Logger): void {
  const models = Object.keys(config.models);
  if (models.length === 0) logger.warn('no model configured: add a [models.<alias>] table to talk to an LLM');
  else logger.info({ models, default: config.agent.default_model }, 'agent enabled');
}
