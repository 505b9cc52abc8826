/** Assembles this instance's cluster parts (ADR 0021) around the agent's manager, and connects them to the gateway. */
import type { DefaultWorkstreamManager } from '../../agent/workstream-manager.js';
import type { Config } from '../../config/index.js';
import { describeError } from '../../shared/errors.js';
import type { Logger } from '../../shared/logger.js';
import type { Handoff } from '../../storage/handoff-store.js';
import type { Stores } from '../../storage/stores.js';
import type { Gateway } from '../gateway-types.js';
import { ClusterNode, parseControl, parseInbound } from './cluster-node.js';
import { ClusteredWorkstreamManager } from './clustered-manager.js';
import { HandoffInbox, HandoffSender } from './handoffs.js';
import { LeaseKeeper } from './lease-keeper.js';

export interface ClusterParts {
  manager: ClusteredWorkstreamManager;
  node: ClusterNode;
  /** Routes handed-off messages into the gateway and settles taken-over workstreams through it. */
  attach(gateway: Pick<Gateway, 'deliverContent' | 'settleTakenOver'>): void;
}

/** Whether this configuration runs as part of a cluster: PostgreSQL (SQLite is single-instance, ADR 0023). */
export function isClustered(config: Config): boolean {
  return /^postgres(ql)?:\/\//.test(config.database.url ?? '');
}

export function createCluster(input: { config: Config; stores: Stores; logger: Logger; instanceId: string; inner: DefaultWorkstreamManager }): ClusterParts {
  const { config, stores, instanceId, inner } = input;
  const logger = input.logger.child({ component: 'cluster' });
  const keeper = new LeaseKeeper({ store: stores.workstreamLeases, instanceId, ttlMs: config.cluster.lease_ttl_s * 1000 });
  const sender = new HandoffSender({ store: stores.handoffs });
  const manager = new ClusteredWorkstreamManager({ inner, keeper, sender, stores, logger });
  let gateway: Pick<Gateway, 'deliverContent' | 'settleTakenOver'> | undefined;
  const handle = async (handoff: Handoff): Promise<void> => {
    if (handoff.kind === 'interaction') return manager.applyControl(handoff.wsId, parseControl(handoff.payload));
    if (gateway === undefined) throw new Error('the gateway is not attached');
    const inbound = parseInbound(handoff.payload);
    if (!(await gateway.deliverContent(handoff.wsId, inbound.content, inbound.options ?? {}, inbound.target))) {
      logger.warn({ wsId: handoff.wsId, handoffId: handoff.id }, 'a handed-off message found its workstream closed or gone');
    }
  };
  const inbox = new HandoffInbox({ store: stores.handoffs, instanceId, logger, handle });
  const node = new ClusterNode({ stores, keeper, manager, inbox, heartbeatMs: config.cluster.heartbeat_s * 1000, logger });
  return {
    manager,
    node,
    attach(target) {
      gateway = target;
      manager.onTakeover = (wsId) => target.settleTakenOver(wsId);
      manager.afterTakeover = (wsId) => {
        void inbox.inherit(wsId).catch((error: unknown) => logger.warn({ wsId, err: describeError(error) }, 'inheriting handoffs failed'));
      };
    },
  };
}
