/**
 * The workstream manager of an instance in a cluster (ADR 0021): a workstream is live in the one instance that holds
 * its lease. Locating one claims the lease (absent, expired or ours); when another live instance holds it, the caller
 * gets a remote placement (`HeldElsewhere`) that hands messages and controls to the holder. A lease taken from a dead instance is
 * settled first (its interrupted turn resumed, its pending handoffs inherited), as after a restart.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type { InterruptedTurn } from '../../agent/interrupted-turn.js';
import type { DefaultWorkstreamManager } from '../../agent/workstream-manager.js';
import type {
  ApprovalDecisionInput,
  DecisionCheck,
  ResolveOutcome,
  Workstream,
  WorkstreamManager,
} from '../../agent/workstream-api.js';
import { describeError } from '../../shared/errors.js';
import type { Logger } from '../../shared/logger.js';
import type { Stores } from '../../storage/stores.js';
import type { ControlHandoff, HandoffSender } from './handoffs.js';
import type { LeaseKeeper } from './lease-keeper.js';
import { localPlacement, type Placement } from './coordination.js';
import { HeldElsewhere } from './remote-placement.js';

export interface ClusteredManagerOptions {
  inner: DefaultWorkstreamManager;
  keeper: LeaseKeeper;
  sender: HandoffSender;
  stores: Pick<Stores, 'approvals' | 'workstreams'>;
  logger: Logger;
}

export class ClusteredWorkstreamManager implements WorkstreamManager {
  /** Settles a workstream taken over from a dead instance (set by the gateway wiring: its interrupted turn). */
  onTakeover: (wsId: string, from: string) => Promise<void> = async () => undefined;
  /** Runs once the takeover settled (the wiring takes the handoffs the dead instance left). */
  afterTakeover: (wsId: string) => void = () => undefined;
  private readonly takeovers = new Map<string, Promise<void>>();
  /** The workstream whose takeover the current call belongs to: it must not wait for that takeover (itself). */
  private readonly insideTakeover = new AsyncLocalStorage<string>();
  private readonly inner: DefaultWorkstreamManager;
  private readonly keeper: LeaseKeeper;

  constructor(private readonly options: ClusteredManagerOptions) {
    this.inner = options.inner;
    this.keeper = options.keeper;
  }

  async create(input: Parameters<WorkstreamManager['create']>[0]): Promise<Workstream> {
    const ws = await this.inner.create(input);
    // Nobody else knows the new id before its route commits (also in the background, ADR 0020), so the claim is
    // uncontested and need not hold up the first turn; calls for the workstream meanwhile share this claim.
    void this.keeper.claim(ws.wsId).then(
      (claim) => {
        if (!claim.own)
          this.options.logger.error(
            { wsId: ws.wsId, holder: claim.holder },
            'a new workstream was claimed by another instance first',
          );
      },
      (error: unknown) =>
        this.options.logger.error(
          { wsId: ws.wsId, err: describeError(error) },
          'claiming a new workstream failed; the next message claims it',
        ),
    );
    return ws;
  }

  /** The workstream when this instance may run it (live here); undefined when gone, closed or run by another instance. */
  async get(wsId: string): Promise<Workstream | undefined> {
    const placement = await this.locate(wsId);
    return placement?.kind === 'local' ? placement.ws : undefined;
  }

  /** Where the workstream runs: here when this instance may run it, else on its holder; undefined when gone or closed. */
  async locate(wsId: string): Promise<Placement | undefined> {
    const holder = await this.holderOf(wsId);
    if (holder === undefined) {
      return localPlacement(await this.inner.get(wsId));
    }
    const row = await this.options.stores.workstreams.get(wsId);
    if (row === undefined || row.state === 'closed') return undefined;
    return new HeldElsewhere(row, holder, this.options.sender, this.options.stores, this.options.logger);
  }

  /** Undefined when this instance holds the lease now (taking it over first when it was a dead instance's). */
  private async holderOf(wsId: string): Promise<string | undefined> {
    const claim = await this.keeper.claim(wsId);
    if (!claim.own) return claim.holder;
    if (claim.takenFrom !== undefined) await this.takeOver(wsId, claim.takenFrom);
    // Everything else waits until the taken-over turn is settled, so a new message comes after it.
    else if (this.insideTakeover.getStore() !== wsId) await this.takeovers.get(wsId);
    return undefined;
  }

  private takeOver(wsId: string, from: string): Promise<void> {
    let pending = this.takeovers.get(wsId);
    if (pending === undefined) {
      this.options.logger.info(
        { wsId, from },
        'workstream taken over from an instance that stopped renewing its lease',
      );
      pending = this.insideTakeover
        .run(wsId, () => this.onTakeover(wsId, from))
        .catch((error: unknown) => {
          this.options.logger.error({ wsId, err: describeError(error) }, 'settling a taken-over workstream failed');
        });
      this.takeovers.set(wsId, pending);
      void pending.finally(() => {
        this.takeovers.delete(wsId);
        this.afterTakeover(wsId);
      });
    }
    return pending;
  }

  /** Claims an expired lease found by the heartbeat's scan; true when this instance took it. */
  async takeOverExpired(wsId: string): Promise<boolean> {
    return (await this.holderOf(wsId)) === undefined;
  }

  async resolveApproval(approvalId: string, decision: ApprovalDecisionInput): Promise<ResolveOutcome> {
    const row = await this.options.stores.approvals.get(approvalId);
    const holder = row === undefined ? undefined : await this.holderOf(row.wsId);
    if (row === undefined || holder === undefined) return this.inner.resolveApproval(approvalId, decision);
    // The waiting turn runs on the holder: the checks run here (a stranger is refused at once), the decision itself is
    // applied by the holder, or by whoever takes the workstream over when the holder died meanwhile (the row is still
    // pending then, so the restored turn waits for it). A second click on another instance finds the row decided there.
    const check = await this.inner.checkApproval(approvalId, decision);
    if (check.status !== 'pending') return check;
    await this.options.sender.control(holder, row.wsId, { op: 'decision', approvalId, decision });
    const always = decision.approved && decision.always === true;
    return {
      status: 'decided',
      wsId: row.wsId,
      approved: decision.approved,
      always,
      feedback: decision.feedback?.trim() || null,
    };
  }

  checkApproval(
    approvalId: string,
    decider: Pick<ApprovalDecisionInput, 'decidedBy' | 'isAdmin'>,
  ): Promise<DecisionCheck> {
    return this.inner.checkApproval(approvalId, decider);
  }

  async close(wsId: string, reason: string): Promise<boolean> {
    const holder = await this.holderOf(wsId);
    if (holder === undefined) {
      const closed = await this.inner.close(wsId, reason);
      if (closed) await this.keeper.release([wsId]);
      return closed;
    }
    const row = await this.options.stores.workstreams.get(wsId);
    if (row === undefined || row.state === 'closed') return false;
    await this.options.sender.control(holder, wsId, { op: 'close', reason });
    return true;
  }

  /** A control handed here by the instance that received it; forwarded when the lease moved on meanwhile. */
  async applyControl(wsId: string, control: ControlHandoff): Promise<void> {
    const holder = await this.holderOf(wsId);
    if (holder !== undefined) {
      await this.options.sender.control(holder, wsId, control);
      return;
    }
    switch (control.op) {
      case 'decision': {
        const outcome = await this.inner.resolveApproval(control.approvalId, control.decision);
        if (outcome.status !== 'decided')
          this.options.logger.info(
            { wsId, approvalId: control.approvalId, outcome: outcome.status },
            'a click handed over found the request decided or gone',
          );
        return;
      }
      case 'cancel':
        (await this.inner.get(wsId))?.cancel();
        return;
      case 'set-model':
        await (await this.inner.get(wsId))?.setModel(control.alias);
        return;
      case 'close':
        await this.close(wsId, control.reason);
        return;
    }
  }

  /** Only the turns of workstreams this instance may run (absent, expired or own lease) are settled here. */
  interruptedTurns(only?: (wsId: string) => Promise<boolean>): Promise<InterruptedTurn[]> {
    return this.inner.interruptedTurns(
      async (wsId) => (only === undefined || (await only(wsId))) && (await this.keeper.claim(wsId)).own,
    );
  }

  finishInterrupted(wsId: string, resume: boolean): Promise<'resumed' | 'noted'> {
    return this.inner.finishInterrupted(wsId, resume);
  }

  /** Like `interruptedTurns`: only workstreams this instance may run. */
  waitingWorkstreams(only?: (wsId: string) => Promise<boolean>): Promise<string[]> {
    return this.inner.waitingWorkstreams(
      async (wsId) => (only === undefined || (await only(wsId))) && (await this.keeper.claim(wsId)).own,
    );
  }

  /** Lost leases: their workstreams stop here at once (the new holder resumes them). */
  forgetLost(wsIds: readonly string[]): void {
    for (const wsId of wsIds) {
      if (this.inner.forget(wsId))
        this.options.logger.warn({ wsId }, 'lease lost to another instance; the workstream stopped here');
    }
  }

  /** Held leases of workstreams that are no longer live here (evicted, idle): given back so the table stays small. */
  async releaseIdle(claimedBefore: number): Promise<number> {
    return this.keeper.release(this.keeper.heldSince(claimedBefore).filter((wsId) => !this.inner.isLive(wsId)));
  }

  evictIdle(): Promise<number> {
    return this.inner.evictIdle();
  }

  shutdown(): Promise<void> {
    return this.inner.shutdown();
  }

  stats(): { active: number; running: number } {
    return this.inner.stats();
  }
}
