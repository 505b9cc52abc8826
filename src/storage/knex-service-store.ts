/** ServiceStore on knex: the heartbeat registry of running gateways (`services`). */
import type { Knex } from 'knex';
import { isoFromMs, isoNow } from '../shared/time.js';
import { isRecord, parseJsonOr, text, type DbRow } from './rows.js';
import type { ServiceRow, ServiceStore } from './service-store.js';
import { guard } from './storage-errors.js';

function toService(row: DbRow): ServiceRow {
  return {
    serviceType: text(row.service_type),
    serviceId: text(row.service_id),
    url: text(row.url),
    metadata: parseJsonOr(row.metadata, {}, isRecord),
    lastHeartbeat: text(row.last_heartbeat),
    created: text(row.created),
  };
}

export class KnexServiceStore implements ServiceStore {
  constructor(private readonly knex: Knex) {}

  register(service: {
    serviceType: string;
    serviceId: string;
    url: string;
    metadata?: Record<string, unknown>;
  }): Promise<void> {
    return guard('services.register', async () => {
      const now = isoNow();
      await this.knex('services')
        .insert({
          service_type: service.serviceType,
          service_id: service.serviceId,
          url: service.url,
          metadata: JSON.stringify(service.metadata ?? {}),
          last_heartbeat: now,
          created: now,
        })
        .onConflict(['service_type', 'service_id'])
        .merge(['url', 'metadata', 'last_heartbeat']);
    });
  }

  heartbeat(serviceType: string, serviceId: string): Promise<boolean> {
    return guard('services.heartbeat', async () => {
      const changed = await this.knex('services')
        .where({ service_type: serviceType, service_id: serviceId })
        .update({ last_heartbeat: isoNow() });
      return changed > 0;
    });
  }

  deregister(serviceType: string, serviceId: string): Promise<boolean> {
    return guard('services.deregister', async () => {
      const removed = await this.knex('services').where({ service_type: serviceType, service_id: serviceId }).delete();
      return removed > 0;
    });
  }

  listHealthy(serviceType: string, maxAgeSeconds: number): Promise<ServiceRow[]> {
    return guard('services.listHealthy', async () => {
      const cutoff = isoFromMs(Date.now() - maxAgeSeconds * 1000);
      const rows = (await this.knex('services')
        .where({ service_type: serviceType })
        .andWhere('last_heartbeat', '>=', cutoff)
        .orderBy([{ column: 'last_heartbeat', order: 'desc' }, { column: 'service_id' }])) as DbRow[];
      return rows.map(toService);
    });
  }
}
