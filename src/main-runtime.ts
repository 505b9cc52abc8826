/** Composition root, second half: the agent runtime, MCP and the gateway wiring, loaded by main.ts once HTTP answers. */
import type { McpManager } from './agent/mcp/mcp-manager.js';
import type { Sandbox } from './agent/sandbox/sandbox.js';
import type { Config } from './config/index.js';
import { createGateway, type Gateway } from './gateway/index.js';
import type { Coordination, WorkstreamPlacement } from './gateway/cluster/coordination.js';
import type { McpControl } from './gateway/cluster/mcp-fanout.js';
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
  /** Single instance or cluster (ADR 0052). */
  coordination: Coordination;
  /** Where the HTTP server listens (its real port when 0 was configured): the tools' egress proxy refuses it. */
  httpUrl?: string;
}

/** Applies an MCP control another instance sent (ADR 0050); an unknown server rejects. */
async function applyMcpControl(
  config: Config,
  stores: Stores,
  mcp: McpManager,
  logger: Logger,
  control: McpControl,
): Promise<void> {
  if (control.action === 'reload') {
    // Reloaded, but a server that did not connect here makes this instance a failure in the sender's answer.
    const answer = await (await import('./main-mcp.js')).reloadMcpServers(config, stores, mcp, logger);
    if (answer.failed.length > 0) throw new Error(`reloaded; failed to connect: ${answer.failed.join(', ')}`);
    return;
  }
  if (control.server !== undefined && !mcp.status().perServer.some((entry) => entry.name === control.server))
    throw new Error(`unknown MCP server "${control.server}"`);
  await (control.action === 'refresh' ? mcp.refresh(control.server) : mcp.reconnect(control.server));
}

/** Starts MCP (in the background), the agent runtime and the gateway wiring; `ready` settles when the channels are up. */
export async function startAgentAndChannels({
  config,
  logger,
  stores,
  live,
  stack,
  coordination,
  httpUrl,
}: RuntimeParts): Promise<{ ready: Promise<void> }> {
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
  // In a cluster a workstream runs on the one instance holding its lease (ADR 0021); leases go back after the agent stopped.
  // MCP controls other instances hand over are applied here (ADR 0050).
  const applyMcp = (control: McpControl): Promise<void> => applyMcpControl(config, stores, mcp, logger, control);
  const placement = coordination.placement(runtime.manager, logger, applyMcp);
  if (placement.mcpFanout) live.mcpFanout = placement.mcpFanout;
  stack.push('cluster leases', () => placement.releaseOnStop());
  stack.push('agent', () => runtime.close());
  logModels(config, logger);
  const { gateway, ready } = startGateway({
    config,
    logger,
    stores,
    live,
    stack,
    placement,
    mcp,
    signal: controller.signal,
  });
  startWatchRunner(config, logger, stores, gateway, stack, containment.sandbox);
  // Old conversations, folders and delivery records go hourly (gateway.retention_days, ADR 0046).
  const retention = startRetention({
    lifecycle: stores.lifecycle,
    workspaceDir: config.agent.workspace_dir,
    retentionDays: config.gateway.retention_days,
    notifyReplyDays: config.gateway.notify_reply_days,
    logger,
  });
  stack.push('retention', async () => clearInterval(retention));
  return { ready };
}

/** Watch results go through the gateway, so the turns they start render into their threads. */
function startWatchRunner(
  config: Config,
  logger: Logger,
  stores: Stores,
  gateway: Gateway,
  stack: ShutdownStack,
  sandbox: Sandbox,
): void {
  const runner = createGatewayWatchRunner(config, stores, gateway, logger, sandbox);
  runner.start();
  stack.push('watch runner', () => runner.stop());
}

function logModels(config: Config, logger: Logger): void {
  const models = Object.keys(config.models);
  if (models.length === 0) logger.warn('no model configured: add a [models.<alias>] table to talk to an LLM');
  else logger.info({ models, default: config.agent.default_model }, 'agent enabled');
}

/**
 * The gateway over the placement's manager, started; `ready` settles when the channels are up (then the cluster node
 * starts). The MCP manager's elicitation requests become form cards in the thread of the workstream that triggered
 * them; its OAuth sign-in links go to the caller privately, and the waiting call shows as a card with Cancel there.
 */
function startGateway(parts: {
  config: Config;
  logger: Logger;
  stores: Stores;
  live: LiveParts;
  stack: ShutdownStack;
  placement: WorkstreamPlacement;
  mcp: McpManager;
  signal: AbortSignal;
}): { gateway: Gateway; ready: Promise<void> } {
  const { config, logger, stores, live, stack, placement, mcp, signal } = parts;
  const { manager } = placement;
  // `/mcp refresh` in a conversation reaches every live instance of a cluster (ADR 0050).
  const gatewayMcp = {
    status: () => mcp.status(),
    refresh: async () => (await mcp.refresh(), await placement.mcpFanout?.fanOut({ action: 'refresh' })),
  };
  const gateway = createGateway({
    config,
    adapters: live.adapters,
    manager,
    coordination: placement,
    stores,
    logger,
    elicitations: mcp,
    authorizations: mcp,
    mcp: gatewayMcp,
  });
  live.gateway = gateway;
  stack.push('gateway', () => gateway.stop());
  placement.attach(gateway);
  stack.push('cluster', () => placement.stop());
  const ready = gateway.start(signal).catch((error: unknown) => logger.error({ err: error }, 'channel start failed'));
  void ready
    .then(async () => {
      if (!stack.stopping) await placement.start();
    })
    .catch((error: unknown) => logger.error({ err: error }, 'cluster start failed'));
  return { gateway, ready };
}
