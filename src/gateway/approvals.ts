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
  wsId: string;
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
  ensureRendered(wsId: string): Promise<(() => void) | undefined>;
  signal: AbortSignal;
  /** How long a click waits for the workstream to take its decision (default 10 s). */
  decisionWaitMs?: number;
}

/** The decider of approvals that ended without a person's decision (the agent's `SYSTEM_DECIDER`). */
const SYSTEM_DECIDER = 'system';
const REMEMBERED = 1024;
type ResolvedEvent = Extract<AgentEvent, { type: 'approval-resolved' }>;

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
  private readonly finished = new BoundedSet(REMEMBERED);
  /** Approvals shown as cancelled: a late "approved" edit must not overwrite the true outcome. */
  private readonly cancelled = new BoundedSet(REMEMBERED);
  /** Clicks in progress → the resolution the workstream reports for them. */
  private readonly waiting = new Map<string, { wsId: string; settle: (event: ResolvedEvent | undefined) => void }>();
  /** Card edits run one after another per approval, so the last outcome decided is the one shown. */
  private readonly edits = new Map<string, Promise<void>>();

  constructor(private readonly deps: ApprovalDeskDeps) {}

  /** Posts the card for a committed approval row, then records where it is. */
  async postCard(adapter: ChannelAdapter, channelId: string, wsId: string, event: CardEvent): Promise<void> {
    const card: ApprovalCard =
      event.type === 'plan-review'
        ? { approvalId: event.approvalId, kind: 'plan', items: [], content: event.content, outcome: { status: 'pending' } }
        : { approvalId: event.approvalId, kind: 'tools', items: event.items, outcome: { status: 'pending' } };
    const messageId = await adapter.post(channelId, { kind: 'approval', card }, this.deps.signal);
    this.cards.set(event.approvalId, { wsId, platform: adapter.platform, channelId, messageId, card });
    await this.deps.stores.approvals.setCard(event.approvalId, { channelType: adapter.platform, channelId, messageId });
  }

  /** Called in event order as soon as a workstream reports a resolution (before rendering): wakes a waiting click. */
  observeResolved(event: ResolvedEvent): void {
    this.waiting.get(event.approvalId)?.settle(event);
  }

  /** The workstream was closed: clicks still waiting for it will never see their decision taken. */
  observeClosed(wsId: string): void {
    for (const entry of this.waiting.values()) if (entry.wsId === wsId) entry.settle(undefined);
  }

  /** A decision made elsewhere (cancel, close, terminal, another instance): show it on the card. */
  async onResolved(event: ResolvedEvent): Promise<void> {
    if (this.finished.has(event.approvalId) || this.waiting.has(event.approvalId)) return;
    if (isCancellation(event)) return this.editCard(event.approvalId, { status: 'cancelled', decidedBy: 'system' });
    const user = await this.deps.stores.users.getUser(event.decidedBy).catch(() => undefined);
    const status = event.approved ? (event.always ? 'always' : 'approved') : 'rejected';
    await this.editCard(event.approvalId, { status, decidedBy: user?.username ?? 'system', feedback: event.feedback });
  }

  /** The workstream was closed: the cards this process posted for it and left undecided stop offering buttons. */
  async onClosed(wsId: string): Promise<void> {
    const open = [...this.cards.entries()].filter(([, record]) => record.wsId === wsId).map(([approvalId]) => approvalId);
    await this.cancelCards(open);
  }

  /** Shows these approvals (pending when their workstream was closed) as cancelled, unless a click is deciding them. */
  async cancelCards(approvalIds: readonly string[]): Promise<void> {
    for (const approvalId of approvalIds) {
      if (this.finished.has(approvalId) || this.waiting.has(approvalId)) continue;
      await this.editCard(approvalId, { status: 'cancelled', decidedBy: 'system', feedback: 'The workstream was closed.' });
    }
  }

  /** The turn was cancelled after these approvals were granted: those whose calls did not all run show "cancelled". */
  async onTurnCancelled(approved: { approvalIds: readonly string[]; ranCallIds: ReadonlySet<string> }): Promise<void> {
    for (const approvalId of approved.approvalIds) {
      const record = this.cards.get(approvalId) ?? (await this.loadCard(approvalId));
      if (!record || record.card.items.every((item) => approved.ranCallIds.has(item.callId))) continue;
      await this.editCard(approvalId, { status: 'cancelled', decidedBy: 'system', feedback: 'The turn was cancelled before the tool ran.' });
    }
  }

  /** A button click or form submission on a card. */
  async onAction(adapter: ChannelAdapter, event: ActionEvent): Promise<void> {
    const { router, stores } = this.deps;
    const user = await router.linkedUser(adapter.platform, event.user.id);
    if (!user) return event.respond.reply('Your account is not linked. Use `/link` first.');
    const row = await stores.approvals.get(event.approvalId);
    if (!row) return event.respond.reply('This request no longer exists.');
    if (row.ownerUserId !== user.userId && !user.isAdmin) {
      return event.respond.reply('Only the owner of this workstream can decide this.');
    }
    if (row.state !== 'pending') {
      await this.showFinalState(event.approvalId);
      return event.respond.reply(alreadyDecided(stateShown(row), row.decidedBy === user.userId));
    }
    if (this.waiting.has(event.approvalId)) return event.respond.reply('This request is being decided right now.');
    if (event.openFeedback) {
      // The clicker may decide: now show the feedback form; its submission comes back as a decision.
      if (await event.openFeedback()) return;
      return event.respond.reply('That took too long; please click the button again.');
    }
    const reported = this.waitForResolution(event.approvalId, row.wsId);
    const release = await this.deps.ensureRendered(row.wsId);
    try {
      await this.decide(event, user, reported.promise);
    } finally {
      reported.cancel();
      release?.();
    }
  }

  /** Resolves the row, then shows what the workstream actually did with the decision (it may have been cancelled). */
  private async decide(event: ActionEvent, user: { userId: string; isAdmin: boolean }, reported: Promise<ResolvedEvent | undefined>): Promise<void> {
    const decision = DECISIONS[event.name];
    const outcome = await this.deps.manager.resolveApproval(event.approvalId, {
      approved: decision.approved,
      always: decision.always,
      feedback: event.feedback,
      decidedBy: user.userId,
      isAdmin: user.isAdmin,
    });
    if (outcome.status === 'forbidden') return event.respond.reply('Only the owner of this workstream can decide this.');
    if (outcome.status === 'not-found') return event.respond.reply('This request no longer exists.');
    if (outcome.status === 'already-decided') {
      // A cancel or close won the race: the card shows what the row says, never a stale "pending".
      const row = await this.deps.stores.approvals.get(event.approvalId);
      await this.showFinalState(event.approvalId);
      return event.respond.reply(alreadyDecided(row ? stateShown(row) : outcome.approved ? 'approved' : 'denied', false));
    }
    if (outcome.status === 'stale') {
      // No turn waits for this request any more (its workstream is gone or moved on): nothing runs.
      await this.editCard(event.approvalId, { status: 'cancelled', decidedBy: 'system', feedback: 'This request is no longer active.' });
      return event.respond.reply('This request is no longer active; nothing ran.');
    }
    const seen = await reported;
    if (seen === undefined || isCancellation(seen) || seen.decidedBy !== user.userId) {
      // No turn took the decision (it was cancelled or closed meanwhile): nothing runs, and the card says so.
      await this.editCard(event.approvalId, { status: 'cancelled', decidedBy: 'system', feedback: 'The turn was cancelled before the decision arrived.' });
      return event.respond.reply('This request was cancelled before your decision arrived; nothing ran.');
    }
    const who = escapeMentions(event.user.name);
    await this.editCard(event.approvalId, { status: decision.status, decidedBy: who, feedback: event.feedback });
    await event.respond.reply(`${decision.label}.`);
  }

  /** Waits (bounded) for the workstream to report the resolution of a click; undefined when none came. */
  private waitForResolution(approvalId: string, wsId: string): { promise: Promise<ResolvedEvent | undefined>; cancel(): void } {
    let timer: NodeJS.Timeout | undefined;
    const promise = new Promise<ResolvedEvent | undefined>((resolve) => {
      this.waiting.set(approvalId, { wsId, settle: resolve });
      timer = setTimeout(() => resolve(undefined), this.deps.decisionWaitMs ?? 10_000);
      timer.unref();
    });
    return {
      promise,
      cancel: () => {
        clearTimeout(timer);
        this.waiting.delete(approvalId);
      },
    };
  }

  /** Edits a card whose row is no longer pending to show the row's state (used after a lost race). */
  private async showFinalState(approvalId: string): Promise<void> {
    if (this.finished.has(approvalId)) return;
    const row = await this.deps.stores.approvals.get(approvalId);
    if (!row || row.state === 'pending') return;
    const who = row.decidedBy === null || row.decidedBy === SYSTEM_DECIDER ? undefined : await this.deps.stores.users.getUser(row.decidedBy).catch(() => undefined);
    const shown = stateShown(row);
    const status = shown === 'cancelled' ? 'cancelled' : shown === 'denied' ? 'rejected' : row.always ? 'always' : 'approved';
    await this.editCard(approvalId, { status, decidedBy: who?.username ?? 'system', feedback: row.feedback });
  }

  /** Shows an outcome on the card; edits of one card are serialised and "cancelled" is final. */
  private editCard(approvalId: string, outcome: CardOutcome): Promise<void> {
    this.finished.add(approvalId);
    if (outcome.status === 'cancelled') this.cancelled.add(approvalId);
    const previous = this.edits.get(approvalId) ?? Promise.resolve();
    const next = previous.catch(() => undefined).then(() => this.applyEdit(approvalId, outcome));
    this.edits.set(approvalId, next);
    return next.finally(() => {
      if (this.edits.get(approvalId) === next) this.edits.delete(approvalId);
    });
  }

  private async applyEdit(approvalId: string, outcome: CardOutcome): Promise<void> {
    if (outcome.status !== 'cancelled' && this.cancelled.has(approvalId)) return;
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
    return { wsId: row.wsId, platform: row.channelType, channelId: row.channelId, messageId: row.messageId, card };
  }
}

/** A row's state as people see it: a denial by the system (a request nobody waited for any more) reads as cancelled. */
function stateShown(row: { state: string; decidedBy: string | null }): string {
  return row.state === 'denied' && row.decidedBy === SYSTEM_DECIDER ? 'cancelled' : row.state;
}

/** A resolution the agent reports when a turn stopped waiting (cancel, close), not a person's decision. */
function isCancellation(event: ResolvedEvent): boolean {
  return !event.approved && event.decidedBy === SYSTEM_DECIDER;
}

/** A set that forgets its oldest entries beyond `limit` (bookkeeping about past approvals must not grow forever). */
class BoundedSet {
  private readonly items = new Set<string>();
  constructor(private readonly limit: number) {}
  add(item: string): void {
    this.items.delete(item);
    this.items.add(item);
    if (this.items.size > this.limit) {
      const oldest = this.items.values().next().value;
      if (oldest !== undefined) this.items.delete(oldest);
    }
  }
  has(item: string): boolean {
    return this.items.has(item);
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
