/**
 * MCP reload, refresh and reconnect fanned out to every live instance (ADR 0050). The instance that received the
 * request applies it itself, then writes one `cluster_handoffs` row per other live instance (the service registry,
 * heartbeat at most a lease TTL old); each applies it and writes a `reply` row back. The sender waits a bounded time for
 * the replies and reports which instances applied it, which failed and which did not answer. The rows ride the
 * handoff machinery (NOTIFY to wake, the heartbeat's poll as the safety net) on a lane of their own (`MCP_LANE`).
 */
import { describeError } from '../../shared/errors.js';
import { newHexId } from '../../shared/ids.js';
import type { Logger } from '../../shared/logger.js';
import type { Handoff, HandoffStore } from '../../storage/handoff-store.js';
import type { ServiceStore } from '../../storage/service-store.js';
import { SERVICE_TYPE } from '../registry.js';

/** The handoff lane (the rows' `ws_id`) of MCP controls: no workstream has this id. */
export const MCP_LANE = 'mcp-control';

/** What every instance applies. */
export type McpControl =
  { action: 'reload' } | { action: 'refresh'; server?: string } | { action: 'reconnect'; server: string };

/** Which instances applied a control (this one first), which failed (with a one-line reason) and which did not answer. */
export interface InstancesReport {
  applied: string[];
  failed: Array<{ instance: string; error: string }>;
  missing: string[];
}

interface McpRequest {
  op: 'mcp';
  requestId: string;
  replyTo: string;
  control: McpControl;
}

interface McpReply {
  requestId: string;
  instance: string;
  error?: string;
}

interface Waiting {
  peers: Set<string>;
  report: InstancesReport;
  done(): void;
}

export interface McpFanoutOptions {
  handoffs: Pick<HandoffStore, 'create'>;
  services: Pick<ServiceStore, 'listHealthy'>;
  instanceId: string;
  /** An instance whose registry heartbeat is older than this is not asked (`cluster.lease_ttl_s`). */
  liveWithinS: number;
  /** How long the sender waits for the replies. */
  waitMs: number;
  /** Applies a control to this instance's MCP manager; rejects when it could not. */
  apply(control: McpControl): Promise<void>;
  logger: Logger;
  now?: () => number;
}

export class McpFanout {
  private readonly waiting = new Map<string, Waiting>();
  private readonly now: () => number;

  constructor(private readonly options: McpFanoutOptions) {
    this.now = options.now ?? Date.now;
  }

  /** Asks every other live instance to apply `control` (this one applied it already); resolves with who did. */
  async fanOut(control: McpControl): Promise<InstancesReport> {
    const { instanceId, services, liveWithinS } = this.options;
    const peers = (await services.listHealthy(SERVICE_TYPE, liveWithinS))
      .map((row) => row.serviceId)
      .filter((id) => id !== instanceId);
    const report: InstancesReport = { applied: [instanceId], failed: [], missing: [] };
    if (peers.length === 0) return report;
    const requestId = newHexId();
    let done = (): void => undefined;
    const answered = new Promise<void>((resolve) => (done = resolve));
    this.waiting.set(requestId, { peers: new Set(peers), report, done });
    let timer: NodeJS.Timeout | undefined;
    try {
      const request: McpRequest = { op: 'mcp', requestId, replyTo: instanceId, control };
      await Promise.all(peers.map((target) => this.write(target, 'interaction', request)));
      // Purpose: timeout. An instance that does not answer within the bound is reported as missing.
      const timedOut = new Promise<void>((resolve) => (timer = setTimeout(resolve, this.options.waitMs)));
      await Promise.race([answered, timedOut]);
    } finally {
      clearTimeout(timer);
      this.waiting.delete(requestId);
    }
    const replied = new Set([...report.applied, ...report.failed.map((entry) => entry.instance)]);
    report.missing = peers.filter((peer) => !replied.has(peer));
    return report;
  }

  /** A row of the MCP lane addressed here: a request to apply (then the reply goes back), or a reply to our request. */
  async handle(handoff: Handoff): Promise<void> {
    if (handoff.kind === 'reply') return this.record(JSON.parse(handoff.payload) as McpReply);
    const request = JSON.parse(handoff.payload) as McpRequest;
    const reply: McpReply = { requestId: request.requestId, instance: this.options.instanceId };
    try {
      await this.options.apply(request.control);
    } catch (error) {
      this.options.logger.warn(
        { action: request.control.action, err: describeError(error) },
        'applying an MCP control from another instance failed',
      );
      reply.error = (error instanceof Error ? error.message : String(error)).split('\n')[0]?.slice(0, 200) ?? 'failed';
    }
    await this.write(request.replyTo, 'reply', reply);
  }

  private record(reply: McpReply): void {
    const waiting = this.waiting.get(reply.requestId);
    if (waiting === undefined || !waiting.peers.delete(reply.instance)) return;
    if (reply.error === undefined) waiting.report.applied.push(reply.instance);
    else waiting.report.failed.push({ instance: reply.instance, error: reply.error });
    if (waiting.peers.size === 0) waiting.done();
  }

  private async write(target: string, kind: 'interaction' | 'reply', payload: McpRequest | McpReply): Promise<void> {
    await this.options.handoffs.create({
      target,
      wsId: MCP_LANE,
      kind,
      payload: JSON.stringify(payload),
      createdAt: this.now(),
    });
  }
}
