/**
 * This instance's part in a cluster on one PostgreSQL (ADR 0021). Every heartbeat it renews its workstream leases
 * (a lease it lost stops its workstream here), takes the handoffs addressed to it, and takes over the expired leases
 * of dead instances that left work behind: an interrupted turn (journal row) or handed-off work nobody took. A dead
 * instance's idle workstreams are only released: the next message claims them, on whichever instance gets it.
 */
import { describeError } from '../../shared/errors.js';
import type { Logger } from '../../shared/logger.js';
import type { Stores } from '../../storage/stores.js';
import type { ClusteredWorkstreamManager } from './clustered-manager.js';
import type { HandoffInbox } from './handoffs.js';
import type { LeaseKeeper } from './lease-keeper.js';

/** Expired leases looked at per heartbeat. */
const SCAN_LIMIT = 500;
/** Handled handoffs are kept this long (for `sandpiper status` and debugging), then pruned. */
const HANDOFF_KEEP_MS = 3_600_000;
const PRUNE_EVERY_BEATS = 60;

export interface ClusterNodeOptions {
  stores: Pick<Stores, 'workstreamLeases' | 'handoffs' | 'turnJournal'>;
  keeper: LeaseKeeper;
  manager: ClusteredWorkstreamManager;
  inbox: HandoffInbox;
  heartbeatMs: number;
  /** After every heartbeat (claimed messages waiting for an earlier one re-check then). */
  afterBeat?: () => void;
  logger: Logger;
  now?: () => number;
}

export class ClusterNode {
  private timer: NodeJS.Timeout | undefined;
  /** The lease renewal in flight, and the rest of the beat in flight (see `beat`). */
  private renewing: Promise<void> | undefined;
  private working: Promise<void> | undefined;
  private beats = 0;
  private stopped = false;
  private readonly now: () => number;

  constructor(private readonly options: ClusterNodeOptions) {
    this.now = options.now ?? Date.now;
  }

  /** Starts taking handoffs and beating; the first beat runs at once (work a dead instance left is taken soon). */
  async start(): Promise<void> {
    await this.options.inbox.start();
    // Purpose: heartbeat (the lease and handoffs of this instance).
    this.timer = setInterval(() => void this.beat(), this.options.heartbeatMs);
    this.timer.unref();
    void this.beat();
  }

  /**
   * One heartbeat: the lease renewal and the rest of the beat (handoffs, takeovers, releases) each run unless their
   * previous run is still going. The renewal never waits behind the rest: taking over a dead instance's workstreams
   * can outlast a lease's slack, and a live instance must not lose its own leases meanwhile.
   */
  beat(): Promise<void> {
    if (this.stopped) return Promise.all([this.renewing, this.working]).then(() => undefined);
    this.renewing ??= this.logged(() => this.renewLeases()).finally(() => {
      this.renewing = undefined;
    });
    this.working ??= this.logged(() => this.runWork()).finally(() => {
      this.working = undefined;
      this.options.afterBeat?.();
    });
    return Promise.all([this.renewing, this.working]).then(() => undefined);
  }

  private logged(step: () => Promise<void>): Promise<void> {
    return step().catch((error: unknown) =>
      this.options.logger.warn({ err: describeError(error) }, 'cluster heartbeat failed'),
    );
  }

  private async renewLeases(): Promise<void> {
    const { keeper, manager } = this.options;
    manager.forgetLost(await keeper.renew());
  }

  private async runWork(): Promise<void> {
    const { manager, inbox, stores } = this.options;
    const startedAt = this.now();
    await inbox.poll();
    await this.takeOverExpired();
    await manager.releaseIdle(startedAt - this.options.heartbeatMs);
    if (++this.beats % PRUNE_EVERY_BEATS === 0) await stores.handoffs.prune(startedAt - HANDOFF_KEEP_MS);
  }

  /** Takes over the expired leases with work left behind; releases the rest, per dead holder. */
  private async takeOverExpired(): Promise<void> {
    const { stores, keeper, manager } = this.options;
    const now = this.now();
    const expired = (await stores.workstreamLeases.listExpired(now, SCAN_LIMIT)).filter(
      (lease) => lease.holder !== keeper.instanceId,
    );
    if (expired.length === 0) return;
    const journalled = new Set((await stores.turnJournal.list()).map((row) => row.wsId));
    const idleHolders = new Set<string>();
    for (const lease of expired) {
      if (this.stopped) return;
      const leftWork = journalled.has(lease.wsId) || (await stores.handoffs.listUnclaimedFor(lease.wsId)).length > 0;
      if (!leftWork) idleHolders.add(lease.holder);
      else if (await manager.takeOverExpired(lease.wsId))
        this.options.logger.info({ wsId: lease.wsId, from: lease.holder }, 'took over an interrupted workstream');
    }
    for (const holder of idleHolders) await stores.workstreamLeases.releaseExpired(holder, now);
  }

  /**
   * Graceful stop: no more handoffs are taken; the leases of workstreams without an interrupted turn are given back at
   * once (their next message goes anywhere), those with one are expired at once and taken over with the turn.
   */
  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.timer);
    await this.beat();
    await this.options.inbox.stop();
  }

  /**
   * After the workstreams stopped: releases what nothing is left running for, and hands over at once the workstreams
   * whose turn the stop interrupted (the next takeover scan of another instance resumes them, not the TTL's end).
   */
  async releaseOnStop(): Promise<void> {
    const { stores, keeper } = this.options;
    const journalled = new Set((await stores.turnJournal.list()).map((row) => row.wsId));
    const held = keeper.heldSince(Number.POSITIVE_INFINITY);
    const released = await keeper.release(held.filter((wsId) => !journalled.has(wsId)));
    const handedOver = await keeper.handOver(held.filter((wsId) => journalled.has(wsId)));
    this.options.logger.info({ released, handedOver }, 'workstream leases released');
  }
}
