/** Composition of the watch runner: it polls `watches` and delivers results through the gateway into their threads. */
import type { Sandbox } from './agent/sandbox/sandbox.js';
import path from 'node:path';
import { WatchRunner } from './agent/watch/watch-runner.js';
import type { Config } from './config/index.js';
import type { Gateway } from './gateway/index.js';
import type { Logger } from './shared/logger.js';
import type { Stores } from './storage/stores.js';

export function createGatewayWatchRunner(
  config: Config,
  stores: Stores,
  gateway: Pick<Gateway, 'deliver'>,
  logger: Logger,
  sandbox?: Sandbox,
): WatchRunner {
  return new WatchRunner({
    store: stores.watches,
    deliver: (delivery) => gateway.deliver(delivery.wsId, delivery.text, { origin: 'watch' }),
    cwdFor: (wsId) => path.join(config.agent.workspace_dir, wsId),
    commandTimeoutMs: config.agent.tool_timeout_seconds * 1000,
    ...(sandbox === undefined ? {} : { sandbox }),
    tickMs: config.agent.watch_tick_seconds * 1000,
    logger: logger.child({ component: 'watch' }),
  });
}
