/** Assembles this instance's cluster parts (ADR 0021) around the agent's manager, and connects them to the gateway. */
import type { DefaultWorkstreamManager } from '../../agent/workstream-manager.js';
import type { Config } from '../../config/index.js';
import { describeError } from '../../shared/errors.js';
import type { Logger } from '../../shared/logger.js';
import type { Handoff } from '../../storage/handoff-store.js';
import type { Stores } from '../../storage/stores.js';
import type { GatewayHooks, WorkstreamPlacement } from './coordination.js';
import { ClaimedOrder } from './claimed-order.js';
import { ClusterNode } from './cluster-node.js';
import { ClusteredWorkstreamManager } from './clustered-manager.js';
import { HandoffInbox, HandoffSender, parseControl, parseInbound } from './handoffs.js';
import { LeaseKeeper } from './lease-keeper.js';
import { MCP_LANE, McpFanout, type McpControl } from './mcp-fanout.js';

export interface ClusterParts extends Omit<WorkstreamPlacement, 'recentClaims' | 'linkDirectory' | 'pendingClaims'> {
  manager: ClusteredWorkstreamManager;
  node: ClusterNode;
  /** Per-thread order of messages claimed by several instances (woken by handoff notifications and the heartbeat). */
  order: ClaimedOrder;
  /** MCP reload / refresh / reconnect on every live instance (ADR 0050). */
  mcpFanout: McpFanout;
}

export function createCluster(input: {
  config: Config;
  stores: Stores;
  logger: Logger;
  instanceId: string;
  inner: DefaultWorkstreamManager;
  /** Applies an MCP control to this instance's manager (absent: MCP controls from other instances are refused). */
  applyMcp?: (control: McpControl) => Promise<void>;
}): ClusterParts {
  const { config, stores, instanceId, inner } = input;
  const logger = input.logger.child({ component: 'cluster' });
  const keeper = new LeaseKeeper({
    store: stores.workstreamLeases,
    instanceId,
    ttlMs: config.cluster.lease_ttl_s * 1000,
  });
  const sender = new HandoffSender({ store: stores.handoffs });
  const manager = new ClusteredWorkstreamManager({ inner, keeper, sender, stores, logger });
  let gateway: GatewayHooks | undefined;
  const mcpFanout = createMcpFanout(input, logger);
  const handle = (handoff: Handoff): Promise<void> =>
    handleHandoff(handoff, { gateway: () => gateway, manager, mcpFanout, logger });
  const { order, inbox } = createInbox(input, logger, handle);
  const node = new ClusterNode({
    stores,
    keeper,
    manager,
    inbox,
    heartbeatMs: config.cluster.heartbeat_s * 1000,
    afterBeat: () => order.wake(),
    logger,
  });
  return {
    manager,
    node,
    mcpFanout,
    order,
    locate: (wsId) => manager.locate(wsId),
    start: () => node.start(),
    stop: () => {
      order.stop();
      return node.stop();
    },
    releaseOnStop: () => node.releaseOnStop(),
    attach(target) {
      gateway = target;
      manager.onTakeover = (wsId) => target.settleTakenOver(wsId);
      manager.afterTakeover = (wsId) => {
        void inbox
          .inherit(wsId)
          .catch((error: unknown) => logger.warn({ wsId, err: describeError(error) }, 'inheriting handoffs failed'));
      };
    },
  };
}

type ClusterInput = Parameters<typeof createCluster>[0];

/** The handoff inbox and the claimed messages' order, which re-checks on its notifications (claimed-order.ts). */
function createInbox(
  input: ClusterInput,
  logger: Logger,
  handle: (handoff: Handoff) => Promise<void>,
): { order: ClaimedOrder; inbox: HandoffInbox } {
  const { config, stores, instanceId } = input;
  const order: ClaimedOrder = new ClaimedOrder({
    store: stores.inboundEvents,
    ...claimOrderTiming(config),
    takeHandedHere: () => inbox.takeWaiting(),
    logger,
  });
  const inbox = new HandoffInbox({
    store: stores.handoffs,
    instanceId,
    logger,
    handle,
    onNotified: () => order.wake(),
  });
  return { order, inbox };
}

/**
 * A claimer dead after a lease's time less one beat (as `PostgresCoordination` reclaims); a live claimer's earlier
 * message is waited for at most one lease time (a stalled instance loses its leases by then, too).
 */
export function claimOrderTiming(config: Config): { deadAfterMs: number; maxWaitMs: number } {
  const { heartbeat_s: heartbeat, lease_ttl_s: ttl } = config.cluster;
  return { deadAfterMs: (ttl - heartbeat) * 1000, maxWaitMs: ttl * 1000 };
}

/** MCP controls fanned out to the live instances (ADR 0050). */
function createMcpFanout(input: ClusterInput, logger: Logger): McpFanout {
  const { config, stores, instanceId, applyMcp } = input;
  const { heartbeat_s: heartbeatS, lease_ttl_s: ttlS } = config.cluster;
  // Two heartbeats cover a lost NOTIFY (the poll takes the row); the rest is for the reload itself.
  return new McpFanout({
    handoffs: stores.handoffs,
    services: stores.services,
    instanceId,
    liveWithinS: ttlS,
    waitMs: (2 * heartbeatS + 15) * 1000,
    logger,
    apply: applyMcp ?? (() => Promise.reject(new Error('MCP is not running on this instance'))),
  });
}

/** One handoff addressed to this instance: an MCP control, a control of a workstream held here, or a message for it. */
async function handleHandoff(
  handoff: Handoff,
  parts: {
    gateway: () => GatewayHooks | undefined;
    manager: ClusteredWorkstreamManager;
    mcpFanout: McpFanout;
    logger: Logger;
  },
): Promise<void> {
  const { manager, mcpFanout, logger } = parts;
  if (handoff.wsId === MCP_LANE) return mcpFanout.handle(handoff);
  const gateway = parts.gateway();
  if (gateway === undefined) throw new Error('the gateway is not attached');
  if (handoff.kind === 'interaction') {
    const control = parseControl(handoff.payload);
    // A decision resumes the turn here: it renders into its thread like a click received here (ADR 0021).
    if (control.op === 'decision')
      return gateway.renderWhile(handoff.wsId, () => manager.applyControl(handoff.wsId, control));
    return manager.applyControl(handoff.wsId, control);
  }
  const inbound = parseInbound(handoff.payload);
  if (!(await gateway.deliver(handoff.wsId, inbound.content, inbound.options ?? {}, inbound.target))) {
    logger.warn(
      { wsId: handoff.wsId, handoffId: handoff.id },
      'a handed-off message found its workstream closed or gone',
    );
  }
}
