/**
 * The gateway side of the dedup ledger (ADR 0015): every inbound event is recorded by platform + event key before any
 * work, so a replay (Discord RESUME), a retry (Slack), a catch-up overlap or a second instance starts nothing twice.
 */
import { randomUUID } from 'node:crypto';
import type { InboundEvent } from '../channels/channel-adapter.js';
import { describeError } from '../shared/errors.js';
import { isoFromMs } from '../shared/time.js';
import type { Logger } from '../shared/logger.js';
import { KeyedSerialLanes } from '../shared/serial-lane.js';
import type { RecentClaims } from './recent-claims.js';
import { UNORDERED, type ClaimOrder } from './cluster/claimed-order.js';
import type { InboundClaim, InboundEventStore } from '../storage/inbound-event-store.js';

/** Rows are kept this much longer than the catch-up window (and at least this long when catch-up is off). */
export const LEDGER_MARGIN_MS = 3_600_000;
/** How often old rows leave the ledger. */
const PRUNE_INTERVAL_MS = 3_600_000;

export class InboundLedger {
  /**
   * Claims of one conversation answer in arrival order, so routing keeps it. The claims themselves are made at once
   * (a burst in one channel becomes one grouped INSERT, see BatchedInboundClaims); only their answers wait in line.
   */
  private readonly order = new KeyedSerialLanes();

  /** Present when this is the only gateway on its database (LocalCoordination): new messages are admitted from memory. */
  private readonly recent: RecentClaims | undefined;

  /** Rows of messages not stored yet: admitted from memory (not written) or claimed pending (see `take`). */
  private readonly deferred = new WeakMap<InboundEvent, InboundClaim>();

  /** This process, as a pending claim's `claimed_by` (the registry's service id when given). */
  private readonly claimedBy: string;

  /** PostgreSQL: a claimer with no registry heartbeat this recent is dead (see `reclaim`); absent on a single instance. */
  private readonly deadAfterMs: number | undefined;

  /** A cluster: a claimed message waits for earlier ones of its thread pending on other instances (claimed-order.ts). */
  private readonly claimOrder: ClaimOrder;

  constructor(
    private readonly store: InboundEventStore,
    private readonly now: () => number,
    private readonly logger: Logger,
    /** From the coordination port (ADR 0052): memory of this process's claims, or undefined (every claim stored first). */
    recent?: RecentClaims,
    /** This process's id for pending claims, and when another claimer counts as dead (coordination port; see `reclaim`). */
    options: { instanceId?: string | undefined; deadAfterMs?: number | undefined; order?: ClaimOrder } = {},
  ) {
    this.recent = recent;
    this.claimedBy = options.instanceId ?? randomUUID();
    this.deadAfterMs = options.deadAfterMs;
    this.claimOrder = options.order ?? UNORDERED;
  }

  /**
   * With memory claims only (single instance): reads each platform's floor (the newest message recorded by earlier runs), so messages
   * above it are admitted without waiting for their insert. A platform whose floor cannot be read keeps the
   * database path. Called before the adapters start.
   */
  async loadFloors(platforms: readonly string[]): Promise<void> {
    const recent = this.recent;
    if (recent === undefined) return;
    await Promise.all(
      platforms.map(async (platform) => {
        try {
          recent.setFloor(platform, await this.store.messageFloor(platform));
        } catch (error) {
          this.logger.warn(
            { platform, error: describeError(error) },
            'inbound ledger floor unreadable; every message waits for its ledger row',
          );
        }
      }),
    );
  }

  /**
   * True when the event is new (recorded now) or carries no id; false for a duplicate. One insert. When the database
   * fails, the event is let through: answering twice is better than never.
   *
   * A message known to be new (see RecentClaims) is admitted at once; its row is written with the message itself (see
   * `take`), or behind once its handling ended (`settle`), so a kill before the message was stored leaves no row and
   * catch-up delivers it again (docs/design/durability.md). Any other message is claimed first, *pending* until the
   * same writes settle it; `reclaim` (catch-up): a pending claim of a process that died before storing the message is
   * taken again. `how.ordered`: the platform spreads one thread's messages over instances (see `threadOrdered`).
   */
  admit(platform: string, event: InboundEvent, how: AdmitOptions = {}): Promise<boolean> {
    const claim = claimOf(platform, event, this.now());
    if (!claim) return Promise.resolve(true);
    const known = this.recent?.check(claim) ?? 'unknown';
    if (known === 'new') this.deferred.set(event, claim);
    const admitted = known === 'unknown' ? this.claimFirst(event, claim, how) : Promise.resolve(known === 'new');
    if (claim.channelId === undefined) return admitted;
    return this.order.run(`${platform}:${claim.channelId}`, () => admitted);
  }

  /**
   * The ledger row of a message admitted from memory and not written yet, handed to the message's *waiting* or
   * *accepted* write (`SendOptions.receipt`): a kill before that write leaves no row, and catch-up delivers the
   * message again. Taken once; undefined when the row is (being) written otherwise.
   */
  take(event: InboundEvent): InboundClaim | undefined {
    const claim = this.deferred.get(event);
    this.deferred.delete(event);
    return claim;
  }

  /** A receipt taken and then not stored with a message (refused, failed): its row is written behind now. */
  release(claim: InboundClaim): Promise<void> {
    return this.record(claim, true).then(() => undefined);
  }

  /**
   * The event's handling ended: a row nobody took (the message was ignored, refused or failed) is written behind now,
   * so a later catch-up does not handle it again.
   */
  settle(event: InboundEvent): Promise<void> {
    const claim = this.take(event);
    return claim === undefined ? Promise.resolve() : this.release(claim);
  }

  /** Claimed in the database before any work; a message's claim stays pending until the message's write settles it. */
  private async claimFirst(event: InboundEvent, claim: InboundClaim, how: AdmitOptions): Promise<boolean> {
    const isMessage = claim.messageId !== undefined && claim.messageId !== '';
    const pending = isMessage ? { ...claim, claimedBy: this.claimedBy } : claim;
    let first = await this.record(pending);
    if (!first && isMessage && how.reclaim === true)
      first = await this.reclaim({ ...claim, claimedBy: this.claimedBy });
    if (!first || !(this.recent?.granted(claim) ?? true)) return false;
    if (!isMessage) return true;
    // Thread order across instances (Slack ts): an earlier message claimed elsewhere reaches the conversation first.
    if (how.ordered === true && threadOrdered(event))
      await this.claimOrder.earlierSettled({ ...claim, claimedBy: this.claimedBy });
    // The receipt names this process: the message's write settles the row only while the claim is still ours.
    this.deferred.set(event, pending);
    return true;
  }

  /** A pending claim of a process that died before storing the message (the instance lock or the registry says so). */
  private async reclaim(claim: InboundClaim & { claimedBy: string }): Promise<boolean> {
    const aliveSince = this.deadAfterMs === undefined ? undefined : isoFromMs(this.now() - this.deadAfterMs);
    try {
      const taken = await this.store.reclaim(claim, aliveSince === undefined ? {} : { aliveSince });
      if (taken)
        this.logger.info(
          { platform: claim.platform, channelId: claim.channelId },
          'a message claimed by a process that died is handled again',
        );
      return taken;
    } catch (error) {
      this.logger.warn({ platform: claim.platform, error: describeError(error) }, 'inbound ledger reclaim failed');
      return false;
    }
  }

  /** `behind`: nobody waits for the row, which joins the next write batch (ADR 0031). */
  private record(claim: InboundClaim, behind = false): Promise<boolean> {
    return (behind ? this.store.claimBehind(claim) : this.store.claim(claim)).catch((error: unknown) => {
      this.logger.warn(
        { platform: claim.platform, error: describeError(error) },
        'inbound ledger write failed; handling the event anyway',
      );
      return true;
    });
  }

  /** Prunes now and every hour (beyond the catch-up window plus a margin nothing replays a row); returns the timer. */
  startPruning(retainMs: number): NodeJS.Timeout {
    void this.prune(retainMs);
    // Purpose: cadence (ledger rows are pruned hourly).
    const timer = setInterval(() => void this.prune(retainMs), PRUNE_INTERVAL_MS);
    timer.unref();
    return timer;
  }

  /** Deletes rows older than `retainMs`; never throws. */
  async prune(retainMs: number): Promise<void> {
    try {
      const removed = await this.store.prune(this.now() - retainMs);
      if (removed > 0) this.logger.debug({ removed }, 'inbound ledger pruned');
    } catch (error) {
      this.logger.warn({ error: describeError(error) }, 'inbound ledger prune failed');
    }
  }
}

/** The ledger row of an event: messages by conversation + message id, interactions by their platform id. */
/** How `InboundLedger.admit` treats one event. */
export interface AdmitOptions {
  /** From catch-up: a pending claim of a dead process is taken again. */
  reclaim?: boolean;
  /** The platform spreads one thread's messages over the instances of a cluster (`ChannelCapabilities.spreadsEvents`). */
  ordered?: boolean;
}

/**
 * Whether a message has earlier messages it must follow: one in a thread or a DM. A top-level channel message opens a
 * conversation of its own (a mention starts a thread), so it waits for nobody.
 */
function threadOrdered(event: InboundEvent): boolean {
  return event.type === 'message' && event.conversation.kind !== 'channel';
}

export function claimOf(platform: string, event: InboundEvent, receivedAt: number): InboundClaim | undefined {
  switch (event.type) {
    case 'message': {
      const channelId = event.conversation.channelId;
      return {
        platform,
        eventKey: `msg:${channelId}:${event.messageId}`,
        channelId,
        messageId: event.messageId,
        receivedAt,
      };
    }
    case 'command':
    case 'action':
    case 'form':
      return event.eventId === undefined || event.eventId === ''
        ? undefined
        : { platform, eventKey: `ix:${event.eventId}`, receivedAt };
    default:
      return undefined;
  }
}
