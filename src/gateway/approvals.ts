/**
 * Approval cards: posts them, remembers where they are, and maps the agent's outcomes to replies and card edits.
 * Who may decide, whether a request is still live and what a row means are the agent's rules (ADR 0008); the only
 * state kept here is where cards are (a cache in front of `approvals.channel_*`).
 */
import { LRUCache } from 'lru-cache';
import { cardItemsOf } from '../agent/approval-record.js';
import type { AgentEvent } from '../agent/events.js';
import type {
  ApprovalDecisionInput,
  ApprovalVerdict,
  ResolveOutcome,
  WorkstreamManager,
} from '../agent/workstream-api.js';
import type {
  ActionName,
  ApprovalCard,
  CardOutcome,
  ChannelAdapter,
  InboundEvent,
} from '../channels/channel-adapter.js';
import { describeError } from '../shared/errors.js';
import { INTERRUPTED_TOOL_RESULT } from '../shared/interruption.js';
import type { Logger } from '../shared/logger.js';
import { maskSecrets } from '../shared/secret-masking.js';
import { KeyedSerialLanes } from '../shared/serial-lane.js';
import type { Stores } from '../storage/stores.js';
import { isPlatformApprover } from './channel-features.js';
import { notLinked } from './commands.js';
import type { LinkedUser, Router } from './router.js';
import type { ConversationRendering } from './conversations.js';

type ActionEvent = Extract<InboundEvent, { type: 'action' }>;
type CardEvent = Extract<AgentEvent, { type: 'approval-request' | 'plan-review' }>;
type ResolvedEvent = Extract<AgentEvent, { type: 'approval-resolved' }>;

interface CardLocation {
  platform: string;
  channelId: string;
  messageId: string;
  card: ApprovalCard;
}

export interface ApprovalDeskDeps {
  stores: Stores;
  manager: WorkstreamManager;
  router: Router;
  logger: Logger;
  adapters: ReadonlyMap<string, ChannelAdapter>;
  /** Makes sure the workstream is live and rendered into its thread while this acts on it (restores it after a restart). */
  conversations: ConversationRendering;
  signal: AbortSignal;
}

const CARD_CACHE = 1024;
/** Shown as the decider of cards that ended without a person's decision. */
const NOBODY = 'system';
const NOT_OWNER = 'Only the owner of this workstream can decide this.';
const GONE = 'This request no longer exists.';

const DECISIONS: Record<ActionName, { approved: boolean; always: boolean; label: string }> = {
  approve: { approved: true, always: false, label: 'Approved' },
  always: { approved: true, always: true, label: 'Always approved' },
  reject: { approved: false, always: false, label: 'Rejected' },
  deny: { approved: false, always: false, label: 'Denied' },
  'plan-approve': { approved: true, always: false, label: 'Plan approved' },
  'plan-changes': { approved: false, always: false, label: 'Changes requested' },
};

export class ApprovalDesk {
  /** Where cards are: a bounded cache in front of `approvals.channel_*` (rebuilt from the row on a miss). */
  private readonly cards = new LRUCache<string, CardLocation>({ max: CARD_CACHE });
  /** Edits of one card run in order, so the card shows the last outcome handed in. */
  private readonly edits = new KeyedSerialLanes();

  constructor(private readonly deps: ApprovalDeskDeps) {}

  /** Posts the card for a committed approval row, then records where it is. */
  async postCard(adapter: ChannelAdapter, channelId: string, event: CardEvent): Promise<void> {
    const card: ApprovalCard =
      event.type === 'plan-review'
        ? {
            approvalId: event.approvalId,
            kind: 'plan',
            items: [],
            content: maskSecrets(event.content),
            outcome: { status: 'pending' },
          }
        : {
            approvalId: event.approvalId,
            kind: event.kind ?? 'tools',
            items: maskedItems(event.items),
            outcome: { status: 'pending' },
          };
    const messageId = await adapter.post(channelId, { kind: 'approval', card }, this.deps.signal);
    this.cards.set(event.approvalId, { platform: adapter.platform, channelId, messageId, card });
    await this.deps.stores.approvals.setCard(event.approvalId, { channelType: adapter.platform, channelId, messageId });
  }

  /** The workstream reported a resolution (a click here or elsewhere, a cancel, a close): the card shows it. */
  async onResolved(event: ResolvedEvent): Promise<void> {
    if (event.outcome === 'cancelled')
      return this.editCard(event.approvalId, { status: 'cancelled', decidedBy: NOBODY, feedback: event.feedback });
    await this.editCard(event.approvalId, await this.decidedOutcome(event));
  }

  /** Shows these approvals (pending when their workstream was closed) as cancelled. */
  async cancelCards(approvalIds: readonly string[]): Promise<void> {
    for (const approvalId of approvalIds) {
      await this.editCard(approvalId, {
        status: 'cancelled',
        decidedBy: NOBODY,
        feedback: 'The workstream was closed.',
      });
    }
  }

  /** The turn was cancelled after these approvals were granted: those whose calls did not all run show "cancelled". */
  async onTurnCancelled(approved: { approvalIds: readonly string[]; ranCallIds: ReadonlySet<string> }): Promise<void> {
    for (const approvalId of approved.approvalIds) {
      const location = await this.locate(approvalId);
      if (!location || location.card.items.every((item) => approved.ranCallIds.has(item.callId))) continue;
      await this.editCard(approvalId, {
        status: 'cancelled',
        decidedBy: NOBODY,
        feedback: 'The turn was cancelled before the tool ran.',
      });
    }
  }

  /**
   * A restart interrupted the turn while approved calls ran (ADR 0013): their cards say so instead of just "Approved"
   * (the calls may have run; they are not repeated).
   */
  async markInterrupted(turnId: string, interruptedCallIds: readonly string[]): Promise<void> {
    const interrupted = new Set(interruptedCallIds);
    for (const row of await this.deps.stores.approvals.listForTurn(turnId)) {
      if (row.kind !== 'tools' || (row.state !== 'approved' && row.state !== 'executed') || row.decidedBy === null)
        continue;
      if (!cardItemsOf(row.items).some((item) => interrupted.has(item.callId))) continue;
      const decided = await this.decidedOutcome({
        approved: true,
        always: row.always,
        feedback: null,
        decidedBy: row.decidedBy,
      });
      await this.editCard(row.approvalId, {
        status: 'interrupted',
        decidedBy: decided.status === 'pending' ? NOBODY : decided.decidedBy,
        feedback: INTERRUPTED_TOOL_RESULT,
      });
    }
  }

  /** A button click or form submission on a card. */
  async onAction(adapter: ChannelAdapter, event: ActionEvent): Promise<void> {
    const user = await this.deps.router.linkedUser(adapter.platform, event.user.id);
    if (!user) return event.respond.reply(notLinked(adapter));
    // A configured approver (Discord role, Slack user group) decides any card, as an admin does (no lookup when none is configured).
    const decider: LinkedUser = user.isAdmin ? user : { ...user, isAdmin: await this.approver(adapter, event) };
    if (event.openFeedback) return this.openFeedback(event, event.openFeedback, decider);
    const decision = DECISIONS[event.name];
    const outcome = await this.decide(event.approvalId, {
      approved: decision.approved,
      always: decision.always,
      feedback: event.feedback,
      decidedBy: decider.userId,
      isAdmin: decider.isAdmin,
    });
    await this.answer(event, outcome, decision.label);
  }

  /**
   * Decides an approval (a card click, or an admin in the console): the agent's rules (owner or admin, still pending)
   * and outcome are the same whoever asks; the card is edited when the workstream reports the resolution.
   */
  async decide(approvalId: string, decision: ApprovalDecisionInput): Promise<ResolveOutcome> {
    const row = await this.deps.stores.approvals.get(approvalId);
    const resolve = (): Promise<ResolveOutcome> => this.deps.manager.resolveApproval(approvalId, decision);
    return row ? this.deps.conversations.renderWhile(row.wsId, resolve) : resolve();
  }

  /** Reject / Request changes: the agent's checks run first, so a stranger gets a refusal and never a form. */
  private async openFeedback(event: ActionEvent, open: () => Promise<boolean>, user: LinkedUser): Promise<void> {
    const check = await this.deps.manager.checkApproval(event.approvalId, {
      decidedBy: user.userId,
      isAdmin: user.isAdmin,
    });
    if (check.status !== 'pending') return this.answer(event, check, '');
    if (await open()) return;
    await event.respond.reply('That took too long; please click the button again.');
  }

  /** Maps the agent's definitive outcome to the private reply (and, where no event will follow, the card). */
  private async answer(event: ActionEvent, outcome: ResolveOutcome, label: string): Promise<void> {
    switch (outcome.status) {
      case 'forbidden':
        return event.respond.reply(NOT_OWNER);
      case 'not-found':
        return event.respond.reply(GONE);
      case 'already-decided':
        // The card may still show buttons (another instance, a lost edit): it shows the final state, never "pending".
        await this.editCard(event.approvalId, await this.verdictOutcome(outcome.verdict));
        return event.respond.reply(alreadyDecided(outcome.verdict, outcome.byYou));
      case 'cancelled':
        await this.editCard(event.approvalId, {
          status: 'cancelled',
          decidedBy: NOBODY,
          feedback: cancelledNote(outcome.reason),
        });
        return event.respond.reply(
          outcome.reason === 'stale'
            ? 'This request is no longer active; nothing ran.'
            : 'This request was cancelled before your decision arrived; nothing ran.',
        );
      case 'decided':
        // The card is edited when the workstream's `approval-resolved` is rendered, in order with the turn.
        return event.respond.reply(`${label}.`);
    }
  }

  private async approver(adapter: ChannelAdapter, event: ActionEvent): Promise<boolean> {
    try {
      return isPlatformApprover(adapter, event.user, this.deps.signal);
    } catch (error) {
      this.deps.logger.warn({ platform: adapter.platform, error: describeError(error) }, 'approver check failed');
      return false;
    }
  }

  private async decidedOutcome(decision: {
    approved: boolean;
    always: boolean;
    feedback: string | null;
    decidedBy: string;
  }): Promise<CardOutcome> {
    // Only the card's "decided by" name: a failed read shows NOBODY there, the decision itself is already stored.
    const user = await this.deps.stores.users.getUser(decision.decidedBy).catch(() => undefined);
    const status = decision.approved ? (decision.always ? 'always' : 'approved') : 'rejected';
    // An operator who decided in the console without a user of their own shows as `admin:<subject>`.
    const decider = user?.username ?? (decision.decidedBy.startsWith('admin:') ? decision.decidedBy : NOBODY);
    return { status, decidedBy: decider, feedback: decision.feedback };
  }

  private verdictOutcome(verdict: ApprovalVerdict): Promise<CardOutcome> | CardOutcome {
    if (verdict.outcome === 'cancelled') return { status: 'cancelled', decidedBy: NOBODY, feedback: verdict.feedback };
    return this.decidedOutcome(verdict);
  }

  /** Shows an outcome on the card; edits of one card are serialised. */
  private editCard(approvalId: string, outcome: CardOutcome): Promise<void> {
    return this.edits.run(approvalId, () => this.applyEdit(approvalId, outcome));
  }

  private async applyEdit(approvalId: string, outcome: CardOutcome): Promise<void> {
    const location = await this.locate(approvalId);
    const adapter = location ? this.deps.adapters.get(location.platform) : undefined;
    if (!location || !adapter) return;
    location.card = { ...location.card, outcome };
    try {
      await adapter.edit(
        location.channelId,
        location.messageId,
        { kind: 'approval', card: location.card },
        this.deps.signal,
      );
    } catch (error) {
      this.deps.logger.warn({ approvalId, error: describeError(error) }, 'approval card edit failed');
    }
  }

  /** Where a card is: the cache, else the row (after a restart or on another instance). */
  private async locate(approvalId: string): Promise<CardLocation | undefined> {
    const cached = this.cards.get(approvalId);
    if (cached) return cached;
    const row = await this.deps.stores.approvals.get(approvalId);
    if (!row?.channelType || !row.channelId || !row.messageId) return undefined;
    const card: ApprovalCard = {
      approvalId,
      kind: row.kind,
      items: maskedItems(cardItemsOf(row.items)),
      outcome: { status: 'pending' },
    };
    const location = { platform: row.channelType, channelId: row.channelId, messageId: row.messageId, card };
    this.cards.set(approvalId, location);
    return location;
  }
}

/** Cards are read by everyone in the thread: secret-looking values in a call's header and preview are masked. */
function maskedItems(items: ApprovalCard['items']): ApprovalCard['items'] {
  return items.map((item) => ({ ...item, header: maskSecrets(item.header), preview: maskSecrets(item.preview) }));
}

function cancelledNote(reason: 'stale' | 'turn-ended'): string {
  return reason === 'stale'
    ? 'This request is no longer active.'
    : 'The turn was cancelled before the decision arrived.';
}

function alreadyDecided(verdict: ApprovalVerdict, byYou: boolean): string {
  const what = verdict.outcome === 'cancelled' ? 'cancelled' : verdict.approved ? 'approved' : 'rejected';
  return `This request was already decided (${what}${byYou && verdict.outcome === 'decided' ? ' by you' : ''}).`;
}
