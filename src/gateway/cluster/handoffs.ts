/**
 * Work handed from the instance that received it to the instance that runs the workstream (ADR 0021). The
 * `cluster_handoffs` row is the truth: a NOTIFY wakes the holder at once, and every heartbeat polls, so a lost
 * notification only delays. Rows are claimed once (one winner), then handled in order per workstream.
 */
import type { ApprovalDecisionInput, SendOptions } from '../../agent/workstream-api.js';
import type { ContentPart } from '../../agent/messages.js';
import { describeError } from '../../shared/errors.js';
import type { Logger } from '../../shared/logger.js';
import { InFlight } from '../../shared/in-flight.js';
import { KeyedSerialLanes, SerialLane } from '../../shared/serial-lane.js';
import type { Handoff, HandoffKind, HandoffStore } from '../../storage/handoff-store.js';
import type { InboundClaim } from '../../storage/inbound-event-store.js';

/** Where the holder shows the answer: the conversation the message came from, and the message to react to. */
export interface RenderTarget {
  platform: string;
  channelId: string;
  messageId?: string;
}

/** A message (or watch result) for the workstream, already past the receiver's checks and attachment intake. */
export interface InboundHandoff {
  content: string | ContentPart[];
  options?: SendOptions;
  target?: RenderTarget;
}

/** A control operation on the running workstream. */
export type ControlHandoff =
  | { op: 'decision'; approvalId: string; decision: ApprovalDecisionInput }
  | { op: 'cancel' }
  | { op: 'set-model'; alias: string }
  | { op: 'close'; reason: string };

const POLL_LIMIT = 100;

export interface HandoffSenderOptions {
  store: HandoffStore;
  now?: () => number;
}

/** Writes handoffs (and, on PostgreSQL, the NOTIFY in the same transaction). */
export class HandoffSender {
  private readonly now: () => number;

  constructor(private readonly options: HandoffSenderOptions) {
    this.now = options.now ?? Date.now;
  }

  /** The message's pending inbound claim (its receipt) is settled with the handoff row: the holder now owns it. */
  inbound(target: string, wsId: string, payload: InboundHandoff): Promise<string> {
    return this.send(target, wsId, 'inbound', payload, payload.options?.receipt);
  }

  control(target: string, wsId: string, payload: ControlHandoff): Promise<string> {
    return this.send(target, wsId, 'interaction', payload);
  }

  private async send(
    target: string,
    wsId: string,
    kind: HandoffKind,
    payload: InboundHandoff | ControlHandoff,
    receipt?: InboundClaim,
  ): Promise<string> {
    const row = { target, wsId, kind, payload: JSON.stringify(payload), createdAt: this.now() };
    return (await this.options.store.create(receipt === undefined ? row : { ...row, receipt })).id;
  }
}

/** The payload of an `inbound` row (written by `HandoffSender.inbound`, so trusted to have this shape). */
export function parseInbound(payload: string): InboundHandoff {
  return JSON.parse(payload) as InboundHandoff;
}

/** The payload of an `interaction` row (written by `HandoffSender.control`). */
export function parseControl(payload: string): ControlHandoff {
  return JSON.parse(payload) as ControlHandoff;
}

export interface HandoffInboxOptions {
  store: HandoffStore;
  instanceId: string;
  logger: Logger;
  /** Handles one claimed handoff; runs in order with the other handoffs of its workstream. */
  handle(handoff: Handoff): Promise<void>;
  /** Any handoff notification, whoever it is for (claimed messages waiting for an earlier one re-check then). */
  onNotified?: () => void;
  now?: () => number;
}

/** Receives the handoffs addressed to this instance, and those a dead instance left behind for a workstream taken over. */
export class HandoffInbox {
  /** Claims run one at a time, so handoffs of a workstream enter its lane in the order they were written. */
  private readonly claims = new SerialLane();
  private readonly lanes = new KeyedSerialLanes();
  /** Takes being claimed or handled, so `takeWaiting` can wait for those a notification started. */
  private readonly taking = new InFlight();
  private closeListener: (() => Promise<void>) | undefined;
  private stopped = false;
  private readonly now: () => number;

  constructor(private readonly options: HandoffInboxOptions) {
    this.now = options.now ?? Date.now;
  }

  /** Listens for wake-ups (PostgreSQL) and takes what is already waiting. */
  async start(): Promise<void> {
    const { store, instanceId, logger } = this.options;
    this.closeListener = await store.listen(
      (target, id) => {
        if (target === instanceId) void this.take(id);
        this.options.onNotified?.();
      },
      (error) => logger.warn({ err: describeError(error) }, 'handoff listener failed; polling until it reconnects'),
    );
    await this.poll();
  }

  /** Takes every unclaimed handoff addressed here (the safety net for a lost notification). */
  async poll(): Promise<void> {
    const rows = await this.options.store.listUnclaimed(this.options.instanceId, POLL_LIMIT);
    await Promise.all(rows.map((row) => this.take(row.id)));
  }

  /**
   * Takes every handoff addressed here and waits until they (and those a notification is taking now) were handled: a
   * message handed here before another one was admitted reaches its workstream first (claimed-order.ts).
   */
  async takeWaiting(): Promise<void> {
    await this.poll();
    // A take a notification started (the row was claimed before the poll listed it) is waited for too.
    await Promise.all(this.taking.snapshot());
  }

  /** Takes the unclaimed handoffs of a workstream this instance just took over (addressed to the dead instance). */
  async inherit(wsId: string): Promise<void> {
    const rows = await this.options.store.listUnclaimedFor(wsId);
    await Promise.all(rows.map((row) => this.take(row.id)));
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await this.closeListener?.();
  }

  /** Claims one row (one winner across instances) and queues it behind the earlier handoffs of its workstream. */
  private take(id: string): Promise<void> {
    return this.taking.track(this.takeOne(id));
  }

  private async takeOne(id: string): Promise<void> {
    try {
      // An object, so the claim lane does not wait for the handling (that waits only for its own workstream).
      const claimed = await this.claims.run(async () => {
        if (this.stopped || !(await this.options.store.claim(id, this.options.instanceId, this.now())))
          return undefined;
        const row = await this.options.store.get(id);
        return row === undefined ? undefined : { handled: this.lanes.run(row.wsId, () => this.handleSafely(row)) };
      });
      await claimed?.handled;
    } catch (error) {
      this.options.logger.error({ handoffId: id, err: describeError(error) }, 'taking a handoff failed');
    }
  }

  private async handleSafely(row: Handoff): Promise<void> {
    try {
      await this.options.handle(row);
    } catch (error) {
      this.options.logger.error(
        { handoffId: row.id, wsId: row.wsId, kind: row.kind, err: describeError(error) },
        'handling a handoff failed',
      );
    }
  }
}
