/** Approval ledger ↔ cards ↔ clicks: posts cards, records where, checks who may click, resolves, edits the card. */
import type { AgentEvent, PreparedItem } from '../agent/events.js';
import type { WorkstreamManager } from '../agent/workstream-api.js';
import type { ActionName, ApprovalCard, CardOutcome, ChannelAdapter, InboundEvent } from '../channels/channel-adapter.js';
import { escapeMentions } from '../channels/format/escape-mentions.js';
import { describeError } from '../shared/errors.js';
import type { Logger } from '../shared/logger.js';
import type { Stores } from '../storage/stores.js';
import type { Router } from './router.js';

type ActionEvent = Extract<InboundEvent, { type: 'action' }>;
type CardEvent = Extract<AgentEvent, { type: 'approval-request' | 'plan-review' }>;

interface CardRecord {
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
  /** Makes sure the workstream is live and rendered into its thread (restores it after a restart). */
  ensureRendered(wsId: string): Promise<void>;
  signal: AbortSignal;
}

const DECISIONS: Record<ActionName, { approved: boolean; always: boolean; status: CardOutcome['status']; label: string }> = {
  approve: { approved: true, always: false, status: 'approved', label: 'Approved' },
  always: { approved: true, always: true, status: 'always', label: 'Always approved' },
  reject: { approved: false, always: false, status: 'rejected', label: 'Rejected' },
  'plan-approve': { approved: true, always: false, status: 'approved', label: 'Plan approved' },
  'plan-changes': { approved: false, always: false, status: 'rejected', label: 'Changes requested' },
};

export class ApprovalDesk {
  /** A cache in front of `approvals.channel_*`: cards posted by this process. */
  private readonly cards = new Map<string, CardRecord>();
  /** Approvals whose card this process already marked decided (skips the echoing `approval-resolved`). */
  private readonly finished = new Set<string>();

  constructor(private readonly deps: ApprovalDeskDeps) {}

  /** Posts the card for a committed approval row, then records where it is. */
  async postCard(adapter: ChannelAdapter, channelId: string, event: CardEvent): Promise<void> {
    const card: ApprovalCard =
      event.type === 'plan-review'
        ? { approvalId: event.approvalId, kind: 'plan', items: [], content: event.content, outcome: { status: 'pending' } }
        : { approvalId: event.approvalId, kind: 'tools', items: event.items, outcome: { status: 'pending' } };
    const messageId = await adapter.post(channelId, { kind: 'approval', card }, this.deps.signal);
    this.cards.set(event.approvalId, { platform: adapter.platform, channelId, messageId, card });
    await this.deps.stores.approvals.setCard(event.approvalId, { channelType: adapter.platform, channelId, messageId });
  }

  /** A decision made elsewhere (timeout, terminal, another instance): show it on the card. */
  async onResolved(event: Extract<AgentEvent, { type: 'approval-resolved' }>): Promise<void> {
    if (this.finished.has(event.approvalId)) return;
    const user = await this.deps.stores.users.getUser(event.decidedBy).catch(() => undefined);
    const status = event.approved ? (event.always ? 'always' : 'approved') : 'rejected';
    await this.editCard(event.approvalId, { status, decidedBy: user?.username ?? 'system', feedback: event.feedback });
  }

  /** A button click or form submission on a card. */
  async onAction(adapter: ChannelAdapter, event: ActionEvent): Promise<void> {
    const { router, stores, manager } = this.deps;
    const user = await router.linkedUser(adapter.platform, event.user.id);
    if (!user) return event.respond.reply('Your account is not linked. Use `/link` first.');
    const row = await stores.approvals.get(event.approvalId);
    if (!row) return event.respond.reply('This request no longer exists.');
    if (row.ownerUserId !== user.userId && !user.isAdmin) {
      return event.respond.reply('Only the owner of this workstream can decide this.');
    }
    if (row.state !== 'pending') return event.respond.reply(alreadyDecided(row.state, row.decidedBy === user.userId));
    const decision = DECISIONS[event.name];
    await this.deps.ensureRendered(row.wsId);
    const outcome = await manager.resolveApproval(event.approvalId, {
      approved: decision.approved,
      always: decision.always,
      feedback: event.feedback,
      decidedBy: user.userId,
      isAdmin: user.isAdmin,
    });
    if (outcome.status === 'forbidden') return event.respond.reply('Only the owner of this workstream can decide this.');
    if (outcome.status === 'not-found') return event.respond.reply('This request no longer exists.');
    if (outcome.status === 'already-decided') {
      return event.respond.reply(alreadyDecided(outcome.approved ? 'approved' : 'denied', false));
    }
    const who = escapeMentions(event.user.name);
    await this.editCard(event.approvalId, { status: decision.status, decidedBy: who, feedback: event.feedback });
    await event.respond.reply(`${decision.label}.`);
  }

  private async editCard(approvalId: string, outcome: CardOutcome): Promise<void> {
    this.finished.add(approvalId);
    const record = this.cards.get(approvalId) ?? (await this.loadCard(approvalId));
    if (!record) return;
    const adapter = this.deps.adapters.get(record.platform);
    if (!adapter) return;
    record.card = { ...record.card, outcome };
    try {
      await adapter.edit(record.channelId, record.messageId, { kind: 'approval', card: record.card }, this.deps.signal);
    } catch (error) {
      this.deps.logger.warn({ approvalId, error: describeError(error) }, 'approval card edit failed');
    }
    this.cards.delete(approvalId);
  }

  /** Rebuilds a card record from the row after a restart. */
  private async loadCard(approvalId: string): Promise<CardRecord | undefined> {
    const row = await this.deps.stores.approvals.get(approvalId);
    if (!row?.channelType || !row.channelId || !row.messageId) return undefined;
    const card: ApprovalCard = { approvalId, kind: row.kind, items: preparedItemsOf(row.items), outcome: { status: 'pending' } };
    return { platform: row.channelType, channelId: row.channelId, messageId: row.messageId, card };
  }
}

function alreadyDecided(state: string, byYou: boolean): string {
  const what = state === 'denied' ? 'rejected' : state === 'cancelled' ? 'cancelled' : 'approved';
  return `This request was already decided (${what}${byYou ? ' by you' : ''}).`;
}

/** Reads the waiting items out of a stored row (`{calls: [{item, status}]}` or a plain item list), tolerantly. */
export function preparedItemsOf(stored: unknown): PreparedItem[] {
  const record = typeof stored === 'object' && stored !== null ? (stored as Record<string, unknown>) : {};
  const list: unknown[] = Array.isArray(stored) ? stored : Array.isArray(record.calls) ? record.calls : Array.isArray(record.items) ? record.items : [];
  return list.flatMap((entry) => {
    const wrapper = typeof entry === 'object' && entry !== null ? (entry as Record<string, unknown>) : {};
    if (wrapper.status !== undefined && wrapper.status !== 'ask') return [];
    const item = (wrapper.item ?? wrapper.prepared ?? entry) as Partial<PreparedItem> | null;
    if (typeof item !== 'object' || item === null || typeof item.name !== 'string') return [];
    return [{
      callId: String(item.callId ?? ''),
      name: item.name,
      approvalLabel: String(item.approvalLabel ?? item.name),
      header: String(item.header ?? ''),
      preview: String(item.preview ?? ''),
      needsApproval: item.needsApproval !== false,
    }];
  });
}
