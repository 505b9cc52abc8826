import type { ContentPart } from '../agent/messages.js';
/** The gateway's public contract: what it is built from (GatewayDeps), what it reports, and what it offers. */
import type { SendOptions, WorkstreamManager } from '../agent/workstream-api.js';
import type { AdapterState, ChannelAdapter } from '../channels/channel-adapter.js';
import type { Config } from '../config/index.js';
import type { Logger } from '../shared/logger.js';
import type { Stores } from '../storage/stores.js';
import type { ElicitationSource } from './elicitations.js';
import type { AuthorizationLinkSource } from './mcp-authorizations.js';
import type { GatewayMcp } from './mcp-command.js';
import type { RenderTarget } from './cluster/handoffs.js';

export interface GatewayDeps {
  config: Config;
  adapters: readonly ChannelAdapter[];
  manager: WorkstreamManager;
  stores: Stores;
  logger: Logger;
  /** MCP elicitation requests, shown as form cards in the thread of the workstream that triggered them. */
  elicitations?: ElicitationSource;
  /** MCP OAuth sign-in links: sent privately, the waiting call shown as a card with Cancel in its thread. */
  authorizations?: AuthorizationLinkSource;
  /** MCP for the in-conversation `/mcp` command (absent: the command says MCP is not running). */
  mcp?: GatewayMcp;
  /** The registry's service id of this process (a pending inbound claim names it, docs/design/durability.md). */
  instanceId?: string;
  /** Tuning for tests and benchmarks; defaults follow the operational contract. */
  options?: { editIntervalMs?: number; typingIntervalMs?: number; now?: () => number };
}

export interface GatewayStatus {
  adapters: Record<string, AdapterState>;
  /** Workstreams the gateway is subscribed to right now (busy ones only; quiet ones are released). */
  workstreams: number;
}

export interface Gateway {
  /** Starts every adapter; resolves when each is connected or has failed (failures are logged, not thrown). */
  start(signal: AbortSignal): Promise<void>;
  /** Stops adapters and renderers; idempotent. */
  stop(): Promise<void>;
  /** Per-adapter connection state, for /health. */
  status(): GatewayStatus;
  /**
   * Sends content into a workstream run here, restoring it when evicted: a message no person typed (a watch result),
   * or one handed over by the instance that received it (ADR 0021). The turn it starts renders into `target` when given,
   * else into the workstream's thread, in order with the thread's own messages. False when the workstream is gone.
   */
  deliver(wsId: string, content: string | ContentPart[], options: SendOptions, target?: RenderTarget): Promise<boolean>;
  /** Settles a workstream taken over from a dead instance as a restart would (interrupted turn noted and resumed). */
  settleTakenOver(wsId: string): Promise<void>;
  /** Runs `work` with the workstream rendered into its home thread (a click handed over from another instance). */
  renderWhile<T>(wsId: string, work: () => Promise<T>): Promise<T>;
}
