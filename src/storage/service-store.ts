/** The service registry (`services`): running gateways announce themselves with heartbeats. */

export interface ServiceRow {
  serviceType: string;
  serviceId: string;
  url: string;
  metadata: Record<string, unknown>;
  lastHeartbeat: string;
  created: string;
}

export interface ServiceStore {
  /** Insert or update url/metadata/heartbeat; `created` is preserved. */
  register(service: {
    serviceType: string;
    serviceId: string;
    url: string;
    metadata?: Record<string, unknown>;
  }): Promise<void>;
  /** Bumps `last_heartbeat`; false when the row is gone. */
  heartbeat(serviceType: string, serviceId: string): Promise<boolean>;
  deregister(serviceType: string, serviceId: string): Promise<boolean>;
  /** Rows of a type whose heartbeat is at most `maxAgeSeconds` old, newest first. */
  listHealthy(serviceType: string, maxAgeSeconds: number): Promise<ServiceRow[]>;
}
