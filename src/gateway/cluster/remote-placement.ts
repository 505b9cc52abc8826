/**
 * A workstream another live instance runs (ADR 0021), as seen from here: its own placement type (ADR 0052), not a
 * workstream. Messages and controls are handed to its holder, which runs the turn and renders it into the conversation
 * (every instance can post to every thread); what it shows here comes from its row.
 */
import type { ContentPart } from '../../agent/messages.js';
import type { SendOptions, SendOutcome, WorkstreamInfo, WorkstreamStatus } from '../../agent/workstream-api.js';
import type { Stores } from '../../storage/stores.js';
import type { WorkstreamRow } from '../../storage/workstream-store.js';
import { describeError } from '../../shared/errors.js';
import type { Logger } from '../../shared/logger.js';
import type { RemotePlacement } from './coordination.js';
import type { HandoffSender, RenderTarget } from './handoffs.js';

export class HeldElsewhere implements RemotePlacement {
  readonly kind = 'remote';
  readonly wsId: string;
  readonly ownerUserId: string;

  constructor(
    private readonly row: WorkstreamRow,
    /** The instance that runs it. */
    readonly holder: string,
    private readonly sender: HandoffSender,
    private readonly stores: Pick<Stores, 'approvals'>,
    private readonly logger?: Logger,
  ) {
    this.wsId = row.wsId;
    this.ownerUserId = row.userId;
  }

  /** Hands a message to the holder, with where to show the answer; accepted once the handoff row is committed. */
  async handOff(
    content: string | ContentPart[],
    options: SendOptions | undefined,
    target: RenderTarget | undefined,
  ): Promise<SendOutcome> {
    const id = await this.sender.inbound(this.holder, this.wsId, {
      content,
      ...(options === undefined ? {} : { options }),
      ...(target === undefined ? {} : { target }),
    });
    // Whether it queues behind a running turn is decided by the holder; here it is only accepted.
    return { status: 'accepted', turnId: `handoff:${id}`, queued: false };
  }

  /** Whether a turn runs is known on the holder only. */
  isBusy(): boolean {
    return false;
  }

  cancel(): void {
    // The port's cancel is fire-and-forget; a cancel that could not be handed to the holder is logged, not thrown.
    void this.sender
      .control(this.holder, this.wsId, { op: 'cancel' })
      .catch((error: unknown) =>
        this.logger?.warn(
          { wsId: this.wsId, error: describeError(error) },
          'cancel not handed to the holding instance',
        ),
      );
  }

  /** The holder checks the alias and persists it; the caller has already checked it is configured. */
  async setModel(alias: string): Promise<boolean> {
    await this.sender.control(this.holder, this.wsId, { op: 'set-model', alias });
    return true;
  }

  async info(): Promise<WorkstreamInfo> {
    const pending = (await this.stores.approvals.listPending(this.wsId)).length;
    const { row } = this;
    return {
      wsId: row.wsId,
      ownerUserId: row.userId,
      name: row.name,
      modelAlias: row.modelAlias,
      state: row.state as WorkstreamStatus,
      inputTokens: row.inputTokens,
      outputTokens: row.outputTokens,
      pendingApprovals: pending,
      queuedMessages: 0,
    };
  }
}
