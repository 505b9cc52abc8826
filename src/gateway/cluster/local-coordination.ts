/**
 * Coordination of a single instance (ADR 0052): SQLite, where a second instance is refused (ADR 0023), or a gateway
 * alone in one process. New messages are admitted from memory, every link is held in memory (when the database tells
 * about other processes' commits), every workstream runs here, and Discord paces its own identify calls.
 */
import type { WorkstreamManager } from '../../agent/workstream-api.js';
import type { Logger } from '../../shared/logger.js';
import { DEFAULT_STALE_AFTER_S } from '../admin/admin-status.js';
import { LinkDirectory } from '../link-directory.js';
import { RecentClaims } from '../recent-claims.js';
import {
  localPlacement,
  type Coordination,
  type GatewayCoordination,
  type WorkstreamPlacement,
} from './coordination.js';

/** The gateway side of a single instance around a manager (also what a gateway gets when it is given none). */
export function localGatewayCoordination(manager: WorkstreamManager): GatewayCoordination {
  return {
    recentClaims: () => new RecentClaims(),
    pendingClaims: () => ({}),
    linkDirectory: (stores, logger) =>
      stores.linkChanges === undefined ? undefined : new LinkDirectory(stores.users, stores.linkChanges, logger),
    locate: async (wsId) => localPlacement(await manager.get(wsId)),
  };
}

export function localPlacementOf(manager: WorkstreamManager): WorkstreamPlacement {
  return {
    ...localGatewayCoordination(manager),
    manager,
    attach: () => undefined,
    start: () => Promise.resolve(),
    stop: () => Promise.resolve(),
    releaseOnStop: () => Promise.resolve(),
  };
}

export class LocalCoordination implements Coordination {
  readonly staleAfterSeconds = DEFAULT_STALE_AFTER_S;

  discordSharding(): undefined {
    return undefined;
  }

  identifyThrottle(): undefined {
    return undefined;
  }

  registration(): { metadata: Record<string, unknown> } {
    return { metadata: {} };
  }

  placement(inner: WorkstreamManager, _logger: Logger): WorkstreamPlacement {
    return localPlacementOf(inner);
  }
}
