/** Composition of notify delivery: the sender over the running adapters, the outbox, its recovery worker, the test hook. */
import type { ChannelAdapter } from './channels/channel-adapter.js';
import type { Config } from './config/index.js';
import type { OutboxDeliveryDeps } from './gateway/notify-outbox.js';
import { createNotifyOutboxWorker, type OutboxWorker } from './gateway/notify-outbox-worker.js';
import { createAdapterNotifySender } from './gateway/notify-sender.js';
import { processEnvironment, type Environment } from './shared/environment.js';
import type { Logger } from './shared/logger.js';
import { sleep } from './shared/time.js';
import type { Stores } from './storage/stores.js';

export interface NotifyParts {
  deps: OutboxDeliveryDeps;
  worker: OutboxWorker;
}

/**
 * Test hook, inert unless `SANDPIPER_TEST_NOTIFY_PAUSE_MS` is a positive integer: the notify route then waits that
 * long between writing its outbox rows and calling the platform, so a fault test can kill -9 the process there.
 */
export function notifyTestPause(
  logger: Logger,
  env: Environment = processEnvironment(),
): (() => Promise<void>) | undefined {
  const raw = env['SANDPIPER_TEST_NOTIFY_PAUSE_MS'];
  const ms = raw === undefined ? Number.NaN : Number(raw);
  if (!Number.isInteger(ms) || ms <= 0) return undefined;
  logger.warn(
    { ms },
    'SANDPIPER_TEST_NOTIFY_PAUSE_MS is set: notify pauses before every platform call (test hook; never set it in production)',
  );
  return () => sleep(ms);
}

export function createNotifyParts(
  config: Config,
  stores: Stores,
  adapters: readonly ChannelAdapter[],
  logger: Logger,
): NotifyParts {
  const pause = notifyTestPause(logger);
  const deps: OutboxDeliveryDeps = {
    outbox: stores.notifyOutbox,
    deliveries: stores.notifyDeliveries,
    sender: createAdapterNotifySender(adapters),
    logger,
    timeoutMs: config.gateway.notify_timeout_s * 1000,
    ...(pause === undefined ? {} : { pauseAfterAccept: pause }),
  };
  return { deps, worker: createNotifyOutboxWorker(deps) };
}
