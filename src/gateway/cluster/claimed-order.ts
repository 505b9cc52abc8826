/**
 * Per-thread order of claimed messages across instances (docs/design/cluster.md). In a cluster every instance receives
 * Slack events and claims them in the inbound ledger; two messages of one thread claimed by two instances could reach
 * the conversation in the wrong order when the earlier one's instance is slower between its claim and the message's
 * stored write (attachments, a lease lookup). Before a claimed message is admitted, the instance asks the ledger (one
 * indexed query, `InboundEventStore.earlierPending`) whether a message of the same thread that sorts before it (Slack
 * `ts`, not arrival) is still pending on another live instance, and waits until it is settled: re-checked on the
 * cluster's wakes (a handoff notification, the heartbeat), never by polling of its own. Then what other instances
 * handed here is taken from the handoff inbox first, whether or not anything was waited for: an earlier message handed
 * over just before the check is no longer pending, but may not be taken yet. The wait is bounded: a claimer that stops
 * beating is dead and no longer waited for (catch-up takes its message again), and a live one is waited for at most
 * `maxWaitMs`.
 *
 * A single instance has one order already (its ledger's lanes): `UNORDERED` is its no-op.
 */
import { describeError } from '../../shared/errors.js';
import type { Logger } from '../../shared/logger.js';
import { isoFromMs } from '../../shared/time.js';
import type { InboundClaim, InboundEventStore } from '../../storage/inbound-event-store.js';

/** What the inbound ledger asks before admitting a claimed message. */
export interface ClaimOrder {
  /** Resolves once no earlier message of the claim's conversation is pending on another live instance. Never rejects. */
  earlierSettled(claim: InboundClaim & { claimedBy: string }): Promise<void>;
}

/** One instance: its ledger's lanes keep the order, nothing is waited for. */
export const UNORDERED: ClaimOrder = { earlierSettled: () => Promise.resolve() };

export interface ClaimedOrderOptions {
  store: Pick<InboundEventStore, 'earlierPending'>;
  /** A claimer whose heartbeat is older than this is dead: its pending message is not waited for. */
  deadAfterMs: number;
  /** The longest wait for an earlier message of a live claimer; then the message is admitted anyway (logged). */
  maxWaitMs: number;
  /** After waiting: takes what other instances handed here (the earlier message, when this instance holds the thread). */
  takeHandedHere(): Promise<void>;
  logger: Logger;
  now?: () => number;
}

export class ClaimedOrder implements ClaimOrder {
  /** Waiters for the next wake (a handoff notification or the heartbeat). */
  private waiters: Array<() => void> = [];
  private stopped = false;
  private readonly now: () => number;

  constructor(private readonly options: ClaimedOrderOptions) {
    this.now = options.now ?? Date.now;
  }

  async earlierSettled(claim: InboundClaim & { claimedBy: string }): Promise<void> {
    const deadline = this.now() + this.options.maxWaitMs;
    for (let earlier = await this.earlier(claim); earlier !== undefined; earlier = await this.earlier(claim)) {
      if (this.stopped || this.now() >= deadline) {
        this.options.logger.warn(
          { platform: claim.platform, channelId: claim.channelId, messageId: claim.messageId, earlier },
          this.stopped
            ? 'stopping: a message is admitted before an earlier one still pending elsewhere'
            : 'an earlier message of the thread stayed pending elsewhere too long; admitting this one first',
        );
        return;
      }
      await new Promise<void>((resolve) => this.waiters.push(resolve));
    }
    // Also when nothing was pending at the first check: the earlier message may have been handed here between this
    // message's claim and that check (its claim settled with the handoff row), and not taken yet.
    try {
      await this.options.takeHandedHere();
    } catch (error) {
      this.options.logger.warn(
        { error: describeError(error) },
        'taking handed-over messages before a later one failed',
      );
    }
  }

  /** Re-checks every waiting message (a handoff was written, or the heartbeat ran). */
  wake(): void {
    const waiters = this.waiters;
    this.waiters = [];
    for (const resolve of waiters) resolve();
  }

  /** Nothing more is waited for (the instance stops; its messages are admitted as they come). */
  stop(): void {
    this.stopped = true;
    this.wake();
  }

  /** The earlier pending message, or undefined; a failed check admits in arrival order (logged). */
  private async earlier(claim: InboundClaim & { claimedBy: string }): Promise<string | undefined> {
    try {
      const aliveSince = isoFromMs(this.now() - this.options.deadAfterMs);
      return await this.options.store.earlierPending(claim, { aliveSince });
    } catch (error) {
      this.options.logger.warn(
        { platform: claim.platform, error: describeError(error) },
        'checking for earlier pending messages failed; admitting in arrival order',
      );
      return undefined;
    }
  }
}
