/**
 * The coordination port (ADR 0052): everything that differs between one instance alone on its database and a cluster
 * of instances on one PostgreSQL (ADR 0021) sits behind it, so the gateway's core never asks which one it runs in.
 * `LocalCoordination` (single instance, SQLite or one process) and `PostgresCoordination` implement it; the
 * composition root (src/main-coordination.ts) picks one. The contract suite (test/contracts/coordination.contract.ts)
 * runs on both.
 *
 * - inbound claims and dedup: a local instance may admit new messages from memory (`recentClaims`); a cluster claims
 *   every event in the ledger table;
 * - link lookup: a local instance keeps every link in memory (`linkDirectory`); a cluster asks the database;
 * - placement and handoff: `locate` says whether a workstream runs here or on another instance, which gets messages
 *   handed to it (a remote placement is its own type, not a workstream);
 * - leases, shard ownership and identify throttling: the workstream manager wraps, the Discord sharding options and
 *   the identify throttle (`discord.js`'s own locally, a database-backed bucket in a cluster).
 */
import type { ContentPart } from '../../agent/messages.js';
import type { DefaultWorkstreamManager } from '../../agent/workstream-manager.js';
import type { SendOptions, SendOutcome, Workstream, WorkstreamManager } from '../../agent/workstream-api.js';
import type { DiscordClusterOptions } from '../../channels/discord/discord-shard-keeper.js';
import type { Logger } from '../../shared/logger.js';
import type { Stores } from '../../storage/stores.js';
import type { Gateway } from '../gateway-types.js';
import type { LinkDirectory } from '../link-directory.js';
import type { RecentClaims } from '../recent-claims.js';
import type { ClaimOrder } from './claimed-order.js';
import type { RenderTarget } from './handoffs.js';
import type { McpControl, McpFanout } from './mcp-fanout.js';

/** What every placement offers: who owns it and the controls of commands (`/cancel`, `/model`, `/status`). */
export type WorkstreamControls = Pick<Workstream, 'wsId' | 'ownerUserId' | 'isBusy' | 'cancel' | 'setModel' | 'info'>;

/** A workstream another live instance runs: content given here is handed to its holder, which renders the answer. */
export interface RemotePlacement extends WorkstreamControls {
  readonly kind: 'remote';
  /** The instance that holds its lease. */
  readonly holder: string;
  /** Accepted once the handoff is stored; the holder decides whether it queues. */
  handOff(
    content: string | ContentPart[],
    options: SendOptions | undefined,
    target: RenderTarget | undefined,
  ): Promise<SendOutcome>;
}

/** A workstream live here. */
export interface LocalPlacement {
  readonly kind: 'local';
  readonly wsId: string;
  readonly ownerUserId: string;
  readonly ws: Workstream;
}

/** Where a workstream runs: here (live), or on another instance. */
export type Placement = LocalPlacement | RemotePlacement;

/** What the gateway asks of coordination. */
export interface GatewayCoordination {
  /** Memory that admits new messages without waiting for the ledger's insert; undefined: every claim is stored first. */
  recentClaims(): RecentClaims | undefined;
  /**
   * Pending inbound claims (a message claimed, not stored yet): who this process is as a claimer, and when another
   * claimer counts as dead so catch-up takes its message again. A single instance: any other process is a dead one (no
   * id needed). A cluster: the registry's service id, dead once its heartbeat is older than `deadAfterMs`, and the
   * per-thread order of messages claimed by several instances (`order`, claimed-order.ts; absent: none to keep).
   */
  pendingClaims(): { instanceId?: string | undefined; deadAfterMs?: number | undefined; order?: ClaimOrder };
  /** Every link in memory, or undefined: each lookup asks the database. */
  linkDirectory(stores: Pick<Stores, 'users' | 'linkChanges'>, logger: Logger): LinkDirectory | undefined;
  /** Where the workstream runs; undefined when it is gone or closed. */
  locate(wsId: string): Promise<Placement | undefined>;
}

/** The gateway hooks a cluster routes handed-off work through. */
export type GatewayHooks = Pick<Gateway, 'deliver' | 'settleTakenOver' | 'renderWhile'>;

/** Workstream placement of this instance, built around the agent's manager once the agent runs. */
export interface WorkstreamPlacement extends GatewayCoordination {
  /** The manager the gateway drives: the agent's own (local) or the lease-aware one (cluster). */
  readonly manager: WorkstreamManager;
  /** Routes handed-off work into the gateway and settles taken-over workstreams through it. */
  attach(gateway: GatewayHooks): void;
  /** Starts taking handoffs and renewing leases (after the channels are up). */
  start(): Promise<void>;
  /** Stops the heartbeat and the handoff inbox. */
  stop(): Promise<void>;
  /** Gives back the leases once the agent stopped. */
  releaseOnStop(): Promise<void>;
  /** MCP reload / refresh / reconnect on every other live instance (ADR 0050); absent on a single instance. */
  readonly mcpFanout?: McpFanout;
}

/** The Discord side: identify pacing across instances. */
export interface IdentifyThrottle {
  /** Resolves once the shard may identify; rejects when `signal` aborts. */
  waitForIdentify(shardId: number, signal: AbortSignal): Promise<void>;
}

/** This instance's coordination, built before the channels (they need shard ownership and the identify throttle). */
export interface Coordination {
  /** Discord shard leases, or undefined when this instance runs the configured shards itself. */
  discordSharding(): DiscordClusterOptions | undefined;
  /** The identify throttle for `max_concurrency` (from /gateway/bot), or undefined: discord.js's own. */
  identifyThrottle(maxConcurrency: number): IdentifyThrottle | undefined;
  /** The service registry's heartbeat and metadata of this instance. */
  registration(): { metadata: Record<string, unknown>; heartbeatMs?: number };
  /** Heartbeat age after which an instance counts as stale (`sandpiper status`). */
  readonly staleAfterSeconds: number;
  /** Placement around the agent's manager; `applyMcp` applies MCP controls other instances hand over (ADR 0050). */
  placement(
    inner: DefaultWorkstreamManager,
    logger: Logger,
    applyMcp?: (control: McpControl) => Promise<void>,
  ): WorkstreamPlacement;
}

/** The placement of a live workstream: here. */
export function localPlacement(ws: Workstream): LocalPlacement;
export function localPlacement(ws: Workstream | undefined): LocalPlacement | undefined;
export function localPlacement(ws: Workstream | undefined): LocalPlacement | undefined {
  return ws === undefined ? undefined : { kind: 'local', wsId: ws.wsId, ownerUserId: ws.ownerUserId, ws };
}

/** The controls of a placement: the live workstream's own, or the handoffs to its holder. */
export function controlsOf(placement: Placement): WorkstreamControls {
  return placement.kind === 'local' ? placement.ws : placement;
}
