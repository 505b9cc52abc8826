/** In-process waiters for approval decisions: a turn waits on one, a click (or cancel/close) settles it. */
import { GatewayError } from '../shared/errors.js';
import type { TurnApprovalDecision } from './turn/turn-types.js';

interface Waiter {
  wsId: string;
  resolve: (decision: TurnApprovalDecision) => void;
  reject: (error: Error) => void;
}

export class ApprovalWaiters {
  private readonly waiters = new Map<string, Waiter>();

  /** Registers a waiter for an approval id; the promise settles on `wake` or `cancelWorkstream`. */
  register(approvalId: string, wsId: string): Promise<TurnApprovalDecision> {
    return new Promise<TurnApprovalDecision>((resolve, reject) => {
      this.waiters.set(approvalId, { wsId, resolve, reject });
    });
  }

  has(approvalId: string): boolean {
    return this.waiters.has(approvalId);
  }

  /** Delivers a decision; false when nobody in this process waits for it. */
  wake(decision: TurnApprovalDecision): boolean {
    const waiter = this.waiters.get(decision.approvalId);
    if (waiter === undefined) return false;
    this.waiters.delete(decision.approvalId);
    waiter.resolve(decision);
    return true;
  }

  drop(approvalId: string): void {
    this.waiters.delete(approvalId);
  }

  /** Rejects every waiter of a workstream (close, shutdown); returns the approval ids that were waited for. */
  cancelWorkstream(wsId: string): string[] {
    const cancelled: string[] = [];
    for (const [approvalId, waiter] of this.waiters) {
      if (waiter.wsId !== wsId) continue;
      this.waiters.delete(approvalId);
      cancelled.push(approvalId);
      waiter.reject(new GatewayError('CANCELLED', 'approval cancelled'));
    }
    return cancelled;
  }

  countFor(wsId: string): number {
    let count = 0;
    for (const waiter of this.waiters.values()) if (waiter.wsId === wsId) count++;
    return count;
  }
}
