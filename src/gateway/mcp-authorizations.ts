/**
 * MCP OAuth links ↔ people: the caller gets their private sign-in link in a direct message on a platform they have
 * linked (the conversation's platform first), and the conversation's thread shows that the call waits for them, like
 * a pending approval. The link itself never goes to the shared thread (docs/design/mcp-oauth.md).
 */
import type { ChannelAdapter } from '../channels/channel-adapter.js';
import { describeError } from '../shared/errors.js';
import { canMessageDirectly, openDirect } from './channel-features.js';
import type { Logger } from '../shared/logger.js';
import type { Stores } from '../storage/stores.js';

/** Mirrors the MCP manager's authorization request (the manager implements the source). */
export interface AuthorizationLinkRequest {
  server: string;
  userId: string;
  conversationId: string;
  url: string;
  expiresAt: string;
}

export interface AuthorizationLinkSource {
  onAuthorization(handler: (request: AuthorizationLinkRequest, signal: AbortSignal) => Promise<void>): () => void;
}

export interface AuthorizationDeskDeps {
  stores: Pick<Stores, 'users' | 'routes'>;
  adapters: ReadonlyMap<string, ChannelAdapter>;
  logger: Logger;
  signal: AbortSignal;
}

export class McpAuthorizationDesk {
  constructor(private readonly deps: AuthorizationDeskDeps) {}

  /** Sends the link privately, then notes the wait in the thread; rejects when no private channel reaches the user. */
  async handle(request: AuthorizationLinkRequest, signal: AbortSignal): Promise<void> {
    const home = request.conversationId === '' ? undefined : await this.deps.stores.routes.getRouteByWorkstream(request.conversationId);
    const minutes = Math.max(1, Math.round((Date.parse(request.expiresAt) - Date.now()) / 60_000));
    const text = `🔐 ${request.server} needs your authorization. Open this link to sign in (it works once, for ${minutes} min):\n${request.url}`;
    const sentOn = await this.sendPrivately(request.userId, home?.channelType, text, signal);
    if (!sentOn) throw new Error('no direct-message channel reaches this user (link an account on Discord or Slack)');
    if (!home) return;
    const adapter = this.deps.adapters.get(home.channelType);
    const note = `⏳ Waiting for authorization of ${request.server}: I sent the sign-in link privately (expires in ${minutes} min). Stop the turn to cancel.`;
    try {
      await adapter?.post(home.channelId, { kind: 'text', text: note }, this.deps.signal);
    } catch (error) {
      this.deps.logger.warn({ server: request.server, error: describeError(error) }, 'MCP authorization note could not be posted');
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
