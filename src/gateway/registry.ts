/** Service-registry membership: registers this gateway in `services`, heartbeats, and deregisters on stop. */
import { hostname } from 'node:os';
import { newHexId } from '../shared/ids.js';
import type { Logger } from '../shared/logger.js';
import type { ServiceStore } from '../storage/service-store.js';

export const SERVICE_TYPE = 'channel';

export interface RegistryOptions {
  services: ServiceStore;
  url: string;
  logger: Logger;
  metadata?: Record<string, unknown>;
  heartbeatMs?: number;
  /** The instance id to register under (the one the instance lock recorded); a new one by default. */
  serviceId?: string;
}

export interface ServiceRegistration {
  readonly serviceId: string;
  stop(): Promise<void>;
}

/** `channel-<hostname>-<8 hex>`. */
export function newServiceId(): string {
  return `channel-${hostname()}-${newHexId(4)}`;
}

export async function registerService(options: RegistryOptions): Promise<ServiceRegistration> {
  const serviceId = options.serviceId ?? newServiceId();
  const { services, logger } = options;
  await services.register({ serviceType: SERVICE_TYPE, serviceId, url: options.url, metadata: options.metadata ?? {} });
  logger.info({ serviceId, url: options.url }, 'registry.registered');
  let stopped = false;
  const beat = async (): Promise<void> => {
    if (stopped) return;
    const alive = await services.heartbeat(SERVICE_TYPE, serviceId);
    if (!alive && !stopped) {
      await services.register({
        serviceType: SERVICE_TYPE,
        serviceId,
        url: options.url,
        metadata: options.metadata ?? {},
      });
      logger.warn({ serviceId }, 'registry.reregistered');
    }
  };
  // Purpose: heartbeat (the service row is refreshed before it goes stale).
  const timer = setInterval(() => {
    void beat().catch((error: unknown) => logger.warn({ err: error }, 'registry.heartbeat_failed'));
  }, options.heartbeatMs ?? 30_000);
  timer.unref();
  return {
    serviceId,
    async stop() {
      stopped = true;
      clearInterval(timer);
      await services.deregister(SERVICE_TYPE, serviceId);
      logger.info({ serviceId }, 'registry.deregistered');
    },
  };
}
