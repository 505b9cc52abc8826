/**
 * MCP elicitation requests ↔ form cards in the triggering workstream's thread ↔ Answer / Decline / form submissions.
 * Also the door for the other form cards, MCP OAuth waits (`mcp-authorizations.ts`), whose clicks it hands over.
 */
import { LRUCache } from 'lru-cache';
import type { ChannelAdapter, FormCard, FormOutcome, FormSpec, InboundEvent } from '../channels/channel-adapter.js';
import { escapeMentions } from '../channels/format/escape-mentions.js';
import { describeError } from '../shared/errors.js';
import type { Logger } from '../shared/logger.js';
import type { Stores } from '../storage/stores.js';
import { maxFormFields, sessionStatus } from './channel-features.js';
import { notLinked } from './commands.js';
import { buildElicitationForm, parseElicitationValues, type ElicitationField } from './elicitation-form.js';
import { McpAuthorizationDesk, isAuthorizationForm, type AuthorizationLinkSource } from './mcp-authorizations.js';
import type { Router } from './router.js';

/** A server's request for structured input (mirrors the MCP manager's request, so the manager implements the port). */
export interface ElicitationRequest {
  id: string;
  /** The MCP server asking. */
  server: string;
  message: string;
  requestedSchema: Record<string, unknown>;
  /** Workstreams with a call to that server in flight; the first one with a thread gets the form. */
  workstreamIds: string[];
  /** ISO time when the source declines on its own. */
  expiresAt: string;
}

export interface ElicitationAnswer {
  action: 'accept' | 'decline' | 'cancel';
  content?: Record<string, string | number | boolean | string[]>;
}

export type ElicitationHandler = (request: ElicitationRequest, signal: AbortSignal) => Promise<ElicitationAnswer>;

/** Where elicitation requests come from (the MCP manager's `onElicitation`). */
export interface ElicitationSource {
  /**
   * Installs the handler that answers requests; returns an unsubscribe function. The source aborts `signal` when the
   * request expires or the server withdraws it, and then no longer waits for the handler.
   */
  onElicitation(handler: ElicitationHandler): () => void;
}

type FormEvent = Extract<InboundEvent, { type: 'form' }>;

interface PendingForm {
  request: ElicitationRequest;
  fields: ElicitationField[];
  ownerUserId: string;
  platform: string;
  channelId: string;
  messageId: string;
  card: FormCard;
  /** Last submitted text per platform user, pre-filled when they open the form again after an error. */
  drafts: Map<string, Readonly<Record<string, string>>>;
  resolve(answer: ElicitationAnswer): void;
}

export interface ElicitationDeskDeps {
  stores: Stores;
  router: Router;
  logger: Logger;
  adapters: ReadonlyMap<string, ChannelAdapter>;
  signal: AbortSignal;
  now?: () => number;
}

const DECLINE: ElicitationAnswer = { action: 'decline' };
const CLOSED_MEMORY = 256;

export class ElicitationDesk {
  /**
   * Open requests, in memory only: an elicitation is a short-lived request an MCP server is waiting on over a live
   * connection. After a restart that connection and the waiting tool call are gone, so there is nothing to resume,
   * and a click on an old card is answered "expired".
   */
  private readonly pending = new Map<string, PendingForm>();
  /** Recently settled requests → what a late click is told (bounded). */
  private readonly closed = new LRUCache<string, string>({ max: CLOSED_MEMORY });
  private readonly now: () => number;
  /** MCP OAuth waits: the private link, and the waiting call's card in the thread. */
  private readonly links: McpAuthorizationDesk;

  constructor(private readonly deps: ElicitationDeskDeps) {
    this.now = deps.now ?? Date.now;
    this.links = new McpAuthorizationDesk(deps);
  }

  /** Takes the requests of both sources (either may be absent); returns the function that stops taking them. */
  subscribe(elicitations: ElicitationSource | undefined, authorizations: AuthorizationLinkSource | undefined): () => void {
    const stopForms = elicitations?.onElicitation((request, signal) => this.handle(request, signal));
    const stopLinks = this.links.subscribe(authorizations);
    return () => {
      stopForms?.();
      stopLinks();
    };
  }

  /** The ElicitationHandler: posts the form card and waits for the owner's answer; never throws. */
  async handle(request: ElicitationRequest, signal: AbortSignal): Promise<ElicitationAnswer> {
    try {
      return await this.ask(request, signal);
    } catch (error) {
      this.deps.logger.warn({ elicitationId: request.id, error: describeError(error) }, 'elicitation form failed');
      return DECLINE;
    }
  }

  /** A click or submission on a form card. */
  async onForm(adapter: ChannelAdapter, event: FormEvent): Promise<void> {
    if (isAuthorizationForm(event.formId)) return this.links.onForm(adapter, event);
    const entry = this.pending.get(event.formId);
    if (!entry || this.now() >= Date.parse(entry.request.expiresAt)) {
      return event.respond.reply(this.closed.get(event.formId) ?? 'This request has expired.');
    }
    const user = await this.deps.router.linkedUser(adapter.platform, event.user.id);
    if (!user) return event.respond.reply(notLinked(adapter));
    if (user.userId !== entry.ownerUserId && !user.isAdmin) return event.respond.reply('Only the owner of this workstream can answer this.');
    const who = escapeMentions(event.user.name);
    if (event.action === 'decline') {
      await this.settle(entry, DECLINE, { status: 'declined', decidedBy: who });
      return event.respond.reply('Declined.');
    }
    if (event.action === 'open' && entry.fields.length > 0) {
      if (await event.respond.showForm(this.formSpec(entry, event.user.id))) return;
      return event.respond.reply('That took too long; please click Answer again.');
    }
    const parsed = parseElicitationValues(entry.fields, event.values);
    if (!parsed.ok) {
      entry.drafts.set(event.user.id, event.values);
      return event.respond.reply(`Please fix the form and answer again:\n${parsed.error.map((problem) => `• ${problem}`).join('\n')}`);
    }
    await this.settle(entry, { action: 'accept', content: parsed.value }, { status: 'answered', decidedBy: who });
    return event.respond.reply('Answer sent.');
  }

  /** Declines every open request (the gateway is stopping); cards are left as they are. */
  stop(): void {
    for (const entry of [...this.pending.values()]) {
      this.forget(entry, 'This request has expired.');
      entry.resolve(DECLINE);
    }
  }

  private async ask(request: ElicitationRequest, signal: AbortSignal): Promise<ElicitationAnswer> {
    const target = await this.findThread(request.workstreamIds);
    if (!target || signal.aborted) {
      this.deps.logger.info({ elicitationId: request.id, server: request.server }, 'elicitation declined: no thread to ask in');
      return DECLINE;
    }
    const built = buildElicitationForm(request.requestedSchema, maxFormFields(target.adapter));
    const card: FormCard = {
      formId: request.id,
      source: request.server,
      message: request.message,
      fieldLabels: built.ok ? built.value.map((entry) => entry.field.label) : [],
      expiresAt: request.expiresAt,
      outcome: built.ok ? { status: 'pending' } : { status: 'unsupported', reason: built.error },
    };
    const messageId = await target.adapter.post(target.channelId, { kind: 'form', card }, this.deps.signal);
    if (built.ok) await sessionStatus(target.adapter, target.channelId, 'suspended', undefined, this.deps.signal);
    if (!built.ok) {
      this.deps.logger.info({ elicitationId: request.id, server: request.server }, 'elicitation declined: form cannot be shown');
      return DECLINE;
    }
    return new Promise<ElicitationAnswer>((resolve) => {
      const entry: PendingForm = {
        request, fields: built.value, ownerUserId: target.ownerUserId, platform: target.adapter.platform,
        channelId: target.channelId, messageId, card, drafts: new Map(), resolve,
      };
      this.pending.set(request.id, entry);
      const onAbort = (): void => void this.onAborted(entry).catch((error: unknown) => this.logFailure(entry, error));
      if (signal.aborted) onAbort();
      else signal.addEventListener('abort', onAbort, { once: true });
    });
  }

  /** The first workstream (of those calling the server) that lives in a thread of a running adapter. */
  private async findThread(wsIds: readonly string[]): Promise<{ adapter: ChannelAdapter; channelId: string; ownerUserId: string } | undefined> {
    for (const wsId of wsIds) {
      const home = await this.deps.router.homeOf(wsId);
      const adapter = home ? this.deps.adapters.get(home.platform) : undefined;
      const row = home && adapter ? await this.deps.stores.workstreams.get(wsId) : undefined;
      if (home && adapter && row) return { adapter, channelId: home.channelId, ownerUserId: row.userId };
    }
    return undefined;
  }

  /** The source stopped waiting: at the deadline the request expired, earlier the server withdrew it. */
  private async onAborted(entry: PendingForm): Promise<void> {
    if (this.pending.get(entry.request.id) !== entry) return;
    const expired = this.now() >= Date.parse(entry.request.expiresAt) - 1_000;
    await this.settle(entry, DECLINE, { status: expired ? 'expired' : 'cancelled' });
  }

  private async settle(entry: PendingForm, answer: ElicitationAnswer, outcome: Exclude<FormOutcome, { status: 'pending' }>): Promise<void> {
    if (this.pending.get(entry.request.id) !== entry) return;
    this.forget(entry, lateClickText(outcome));
    const adapter = this.deps.adapters.get(entry.platform);
    // The session shows work again before the turn goes on (its end sets `active`).
    if (adapter) await sessionStatus(adapter, entry.channelId, 'processing', undefined, this.deps.signal);
    entry.resolve(answer);
    if (!adapter) return;
    entry.card = { ...entry.card, outcome };
    try {
      await adapter.edit(entry.channelId, entry.messageId, { kind: 'form', card: entry.card }, this.deps.signal);
    } catch (error) {
      this.logFailure(entry, error);
    }
  }

  private forget(entry: PendingForm, lateText: string): void {
    this.pending.delete(entry.request.id);
    this.closed.set(entry.request.id, lateText);
  }

  private formSpec(entry: PendingForm, platformUserId: string): FormSpec {
    const draft = entry.drafts.get(platformUserId);
    const fields = entry.fields.map(({ field }) => (draft?.[field.id] === undefined ? field : { ...field, value: draft[field.id] ?? '' }));
    return { formId: entry.request.id, title: `Input for ${entry.request.server}`, fields };
  }

  private logFailure(entry: PendingForm, error: unknown): void {
    this.deps.logger.warn({ elicitationId: entry.request.id, error: describeError(error) }, 'elicitation card update failed');
  }
}

function lateClickText(outcome: Exclude<FormOutcome, { status: 'pending' }>): string {
  switch (outcome.status) {
    case 'answered':
      return 'This request was already answered.';
    case 'declined':
      return 'This request was already declined.';
    default:
      return 'This request has expired.';
  }
}
