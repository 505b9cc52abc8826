/**
 * MCP OAuth links ↔ people: the caller gets their private sign-in link in a direct message on a platform they have
 * linked (the conversation's platform first), and the conversation's thread shows the waiting call as a card with a
 * Cancel button, like a pending approval. The link itself never goes to the shared thread (docs/design/mcp-oauth.md).
 */
import type { ChannelAdapter, FormCard, FormOutcome, InboundEvent } from '../channels/channel-adapter.js';
import { describeError } from '../shared/errors.js';
import { canMessageDirectly, openDirect, sessionStatus } from './channel-features.js';
import type { Logger } from '../shared/logger.js';
import type { Stores } from '../storage/stores.js';
import { notLinked } from './commands.js';
import type { Router } from './router.js';

/** Mirrors the MCP manager's authorization request (the manager implements the source). */
export interface AuthorizationLinkRequest {
  server: string;
  userId: string;
  conversationId: string;
  url: string;
  expiresAt: string;
  /** Names the wait for Cancel. */
  waitId: string;
}

export interface AuthorizationLinkSource {
  /** The handler's signal aborts when the wait ended; its reason says how (`authorized`, `cancelled`, `expired`, …). */
  onAuthorization(handler: (request: AuthorizationLinkRequest, signal: AbortSignal) => Promise<void>): () => void;
  /** Ends a wait (on whichever instance it runs) when it is `userId`'s, or anyone's without; false when it is not waiting. */
  cancelAuthorization(waitId: string, userId: string | undefined): Promise<boolean>;
  /** Forgets stored tokens: `userId`'s on `server` (on every server without it); resolves with how many went. */
  revokeAuthorizations(server: string | undefined, userId: string | undefined): Promise<number>;
}

export interface AuthorizationDeskDeps {
  stores: Pick<Stores, 'users' | 'routes'>;
  adapters: ReadonlyMap<string, ChannelAdapter>;
  router: Pick<Router, 'linkedUser'>;
  logger: Logger;
  signal: AbortSignal;
}

type FormEvent = Extract<InboundEvent, { type: 'form' }>;

const FORM_PREFIX = 'oauth-';

/** Whether a form card id belongs to an authorization wait card. */
export function isAuthorizationForm(formId: string): boolean {
  return formId.startsWith(FORM_PREFIX);
}

const ENDINGS: Record<string, { outcome: Exclude<FormOutcome, { status: 'pending' }>; text: string }> = {
  authorized: { outcome: { status: 'answered', decidedBy: '' }, text: 'Authorized; the call went on.' },
  cancelled: { outcome: { status: 'declined', decidedBy: '' }, text: 'Cancelled; the call ended with an error.' },
  expired: { outcome: { status: 'expired' }, text: 'Nobody signed in in time; the call ended with an error.' },
  declined: { outcome: { status: 'cancelled' }, text: 'The sign-in was declined; the call ended with an error.' },
  failed: { outcome: { status: 'cancelled' }, text: 'The sign-in failed; the call ended with an error.' },
};
const STOPPED = { outcome: { status: 'cancelled' } as const, text: 'The turn stopped; the call ended.' };

export class McpAuthorizationDesk {
  private source: AuthorizationLinkSource | undefined;

  constructor(private readonly deps: AuthorizationDeskDeps) {}

  /** Takes the links of `source` (absent: nothing to do); returns the unsubscribe function. */
  subscribe(source: AuthorizationLinkSource | undefined): () => void {
    this.source = source;
    return source?.onAuthorization((request, signal) => this.handle(request, signal)) ?? (() => undefined);
  }

  /**
   * Sends the link privately and shows the wait in the thread until `signal` aborts (then the card says how it ended);
   * rejects when no private channel reaches the user.
   */
  async handle(request: AuthorizationLinkRequest, signal: AbortSignal): Promise<void> {
    const home = request.conversationId === '' ? undefined : await this.deps.stores.routes.getRouteByWorkstream(request.conversationId);
    const minutes = Math.max(1, Math.round((Date.parse(request.expiresAt) - Date.now()) / 60_000));
    const text = `🔐 ${request.server} needs your authorization. Open this link to sign in (it works once, for ${minutes} min):\n${request.url}`;
    const sentOn = await this.sendPrivately(request.userId, home?.channelType, text, signal);
    if (!sentOn) throw new Error('no direct-message channel reaches this user (link an account on Discord or Slack)');
    const adapter = home ? this.deps.adapters.get(home.channelType) : undefined;
    if (!home || !adapter) return;
    const card: FormCard = {
      formId: `${FORM_PREFIX}${request.waitId}`,
      purpose: 'authorization',
      source: request.server,
      message: `This call waits until its owner signs in to ${request.server} with the link sent to them privately.`,
      fieldLabels: [],
      expiresAt: request.expiresAt,
      outcome: { status: 'pending' },
    };
    const messageId = await this.post(adapter, home.channelId, card);
    if (messageId === undefined) return;
    // Like an approval card: the platform's agent session shows it waits for someone (Slack), then works again.
    await sessionStatus(adapter, home.channelId, 'suspended', undefined, this.deps.signal);
    if (!signal.aborted) await new Promise((resolve) => signal.addEventListener('abort', resolve, { once: true }));
    const ending = ENDINGS[String(signal.reason)] ?? STOPPED;
    await sessionStatus(adapter, home.channelId, 'processing', undefined, this.deps.signal);
    await this.edit(adapter, home.channelId, messageId, { ...card, message: ending.text, outcome: ending.outcome });
  }

  /** A click on a wait card: its owner (or an admin) cancels the wait, wherever the call runs. */
  async onForm(adapter: ChannelAdapter, event: FormEvent): Promise<void> {
    const user = await this.deps.router.linkedUser(adapter.platform, event.user.id);
    if (!user) return event.respond.reply(notLinked(adapter));
    if (event.action !== 'decline') return event.respond.reply('Sign in with the link sent to you privately.');
    const waitId = event.formId.slice(FORM_PREFIX.length);
    const cancelled = (await this.source?.cancelAuthorization(waitId, user.isAdmin ? undefined : user.userId)) ?? false;
    if (cancelled) return event.respond.reply('Cancelled; the call ends with an error the assistant sees.');
    return event.respond.reply('Only the person asked to sign in can cancel this, and only while it waits.');
  }

  private async post(adapter: ChannelAdapter, channelId: string, card: FormCard): Promise<string | undefined> {
    try {
      return await adapter.post(channelId, { kind: 'form', card }, this.deps.signal);
    } catch (error) {
      this.deps.logger.warn({ server: card.source, error: describeError(error) }, 'MCP authorization card could not be posted');
      return undefined;
    }
  }

  private async edit(adapter: ChannelAdapter, channelId: string, messageId: string, card: FormCard): Promise<void> {
    try {
      await adapter.edit(channelId, messageId, { kind: 'form', card }, this.deps.signal);
    } catch (error) {
      this.deps.logger.warn({ server: card.source, error: describeError(error) }, 'MCP authorization card could not be updated');
    }
  }

  private async sendPrivately(userId: string, preferred: string | undefined, text: string, signal: AbortSignal): Promise<string | undefined> {
    const links = await this.deps.stores.users.listLinks(userId);
    const ordered = [...links.filter((link) => link.channelType === preferred), ...links.filter((link) => link.channelType !== preferred)];
    for (const link of ordered) {
      const adapter = this.deps.adapters.get(link.channelType);
      if (!adapter || !canMessageDirectly(adapter) || signal.aborted) continue;
      try {
        const channelId = await openDirect(adapter, link.channelUserId, signal);
        await adapter.post(channelId, { kind: 'text', text }, signal);
        return link.channelType;
      } catch (error) {
        this.deps.logger.warn({ platform: link.channelType, error: describeError(error) }, 'MCP authorization link could not be sent');
      }
    }
    return undefined;
  }
}
