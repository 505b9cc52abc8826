/** Slash-command behaviour shared by every platform: link, unlink, ask, status, close, cancel, steer, model, signout, grants, forget, mcp. */
import type { ChannelAdapter, InboundEvent, PlatformUser } from '../channels/channel-adapter.js';
import { truncate } from '../channels/format/truncate.js';
import { hashApiToken } from '../shared/api-token.js';
import type { Stores } from '../storage/stores.js';
import type { WorkstreamManager } from '../agent/workstream-api.js';
import { controlsOf, type Placement, type WorkstreamControls } from './cluster/coordination.js';
import { mayControl, type Person } from '../agent/ownership.js';
import { forgetCommand, grantsCommand } from './grant-commands.js';
import type { InboundLimits } from './inbound-limits.js';
import { LinkLimiter } from './link-limiter.js';
import type { AuthorizationLinkSource } from './mcp-authorizations.js';
import { runMcpCommand, type GatewayMcp } from './mcp-command.js';
import { steerTurn } from './steer-command.js';
import type { ModelChoice } from './model-choice.js';
import type { Router } from './router.js';
import type { ConversationRendering } from './conversations.js';

type CommandEvent = Extract<InboundEvent, { type: 'command' }>;

export interface CommandDeps {
  stores: Stores;
  manager: WorkstreamManager;
  router: Router;
  models: ModelChoice;
  limits: InboundLimits;
  /**
   * Opens a thread in `channelId`, routes it to a new workstream owned by `ownerUserId` (on `modelAlias`, else the
   * channel's default) and sends the first message.
   */
  startConversation(
    adapter: ChannelAdapter,
    channelId: string,
    name: string,
    requester: PlatformUser,
    ownerUserId: string,
    text: string,
    modelAlias: string | undefined,
  ): Promise<void>;
  /** Makes sure the workstream is live and rendered into its thread while this acts on it (restores it after a restart). */
  conversations: ConversationRendering;
  /** Marks the cards of approvals that were pending when their workstream closed as cancelled. */
  cancelCards(approvalIds: readonly string[]): Promise<void>;
  /** MCP OAuth sign-ins (absent without MCP): `signout` forgets the user's own. */
  authorizations?: Pick<AuthorizationLinkSource, 'revokeAuthorizations'> | undefined;
  /** MCP for `/mcp` (absent: the command says MCP is not running). */
  mcp?: GatewayMcp | undefined;
  now?: () => number;
  signal: AbortSignal;
}

/** The whole answer to a `/status` by someone who neither owns the thread nor is an admin. */
export const NOT_YOURS = 'Only the owner of this workstream (or an admin) can see its status.';

/** The refusal for unlinked users; the adapter names its own link command. */
export function notLinked(adapter: ChannelAdapter): string {
  return `Your account is not linked. Use ${adapter.commandText('link')} first.`;
}

export class CommandHandler {
  private readonly limiter: LinkLimiter;

  constructor(private readonly deps: CommandDeps) {
    this.limiter = new LinkLimiter(5, 3_600_000, deps.now ?? Date.now);
  }

  async handle(adapter: ChannelAdapter, event: CommandEvent): Promise<void> {
    switch (event.name) {
      case 'link':
        return event.respond.reply(await this.link(adapter, event.user.id, event.args.token ?? ''));
      case 'unlink': {
        const removed = await this.deps.stores.users.unlink(adapter.platform, event.user.id);
        this.deps.router.forgetUser(adapter.platform, event.user.id);
        return event.respond.reply(removed ? 'Account unlinked.' : 'No linked account found.');
      }
      case 'ask':
        return this.ask(adapter, event);
      case 'signout':
        return event.respond.reply(await this.signOut(adapter, event));
      case 'grants':
        return event.respond.reply(await grantsCommand(this.deps, adapter, event, notLinked(adapter)));
      case 'forget':
        return event.respond.reply(await forgetCommand(this.deps, adapter, event, notLinked(adapter)));
      default:
        return this.threadCommand(adapter, event);
    }
  }

  private async link(adapter: ChannelAdapter, platformUserId: string, token: string): Promise<string> {
    const platform = adapter.platform;
    if (!this.limiter.tryAcquire(`${platform}:${platformUserId}`)) {
      return 'Too many /link attempts. Try again later; the limit is 5 an hour.';
    }
    const { users } = this.deps.stores;
    if (await users.getLink(platform, platformUserId))
      return `Your account is already linked. Use ${adapter.commandText('unlink')} first.`;
    const found = await users.findTokenByHash(hashApiToken(token));
    if (!found) return 'Invalid token. Please provide a valid Sandpiper API token.';
    if (found.expires !== null && Date.parse(`${found.expires.replace(/Z$/, '')}Z`) <= (this.deps.now ?? Date.now)()) {
      return 'This token has expired. Create a new one with `sandpiper token create`.';
    }
    const user = await users.getUser(found.userId);
    if (!user) return 'Token has no associated user.';
    await users.link(platform, platformUserId, user.userId);
    this.deps.router.forgetUser(platform, platformUserId);
    return `Account linked! You are ${user.username}.`;
  }

  /** Forgets the user's own MCP OAuth tokens (one server's, or all of them); never anyone else's. */
  private async signOut(adapter: ChannelAdapter, event: CommandEvent): Promise<string> {
    const user = await this.deps.router.linkedUser(adapter.platform, event.user.id);
    if (!user) return notLinked(adapter);
    const server = event.args.server?.trim() || undefined;
    if (!this.deps.authorizations) return 'No MCP server here uses sign-ins.';
    let count: number;
    try {
      count = await this.deps.authorizations.revokeAuthorizations(server, user.userId);
    } catch (error) {
      // Expected when no server uses OAuth (the message names the missing settings; it holds no secret).
      return `Could not sign out: ${truncate(error instanceof Error ? error.message : String(error), 200)}`;
    }
    if (count > 0)
      return `Signed out of ${server ?? `${count} MCP server(s)`}; the next call asks you to sign in again.`;
    return server === undefined ? 'You were not signed in to any MCP server.' : `You were not signed in to ${server}.`;
  }

  private async ask(adapter: ChannelAdapter, event: CommandEvent): Promise<void> {
    const user = await this.deps.router.linkedUser(adapter.platform, event.user.id);
    if (!user) return event.respond.reply(notLinked(adapter));
    if (event.conversation.kind !== 'channel')
      return event.respond.reply(`Use ${adapter.commandText('ask')} in a channel; it opens a new thread.`);
    let modelAlias: string | undefined;
    if (event.args.model !== undefined && event.args.model.trim() !== '') {
      const chosen = this.deps.models.resolve(event.args.model);
      if (!chosen.ok) return event.respond.reply(chosen.error);
      modelAlias = chosen.value;
    }
    const text = (event.args.message ?? '').trim() || 'Hello';
    const admission = this.deps.limits.admit(`${adapter.platform}:${event.user.id}`, text);
    if (!admission.admitted)
      return event.respond.reply(
        admission.notice ?? 'Not sent: you are over the message limit; try again in a moment.',
      );
    await this.deps.startConversation(
      adapter,
      event.conversation.channelId,
      truncate(text, 100),
      event.user,
      user.userId,
      text,
      modelAlias,
    );
    await event.respond.reply(
      modelAlias
        ? `Started a new thread for your question (model \`${modelAlias}\`).`
        : 'Started a new thread for your question.',
    );
  }

  private async threadCommand(adapter: ChannelAdapter, event: CommandEvent): Promise<void> {
    const wsId = await this.routedWorkstream(adapter, event);
    if (wsId === undefined) return event.respond.reply('Use this command inside a Sandpiper thread.');
    const user = await this.deps.router.linkedUser(adapter.platform, event.user.id);
    if (!user) return event.respond.reply(notLinked(adapter));
    const placement = await this.deps.router.open(wsId);
    if (!placement) {
      await event.removeControl?.();
      return event.respond.reply('This workstream is closed.');
    }
    const ws = controlsOf(placement);
    const answer = await this.answerOnly(ws, user, event);
    if (answer !== undefined) return event.respond.reply(answer);
    if (event.name === 'model') return this.switchModel(ws, event);
    // Subscribed while acting, so the cancelled turn and its approval cards are shown even if the thread was quiet.
    if (event.name === 'cancel') return this.deps.conversations.renderWhile(wsId, () => cancelTurn(ws, event));
    if (event.name === 'steer')
      return this.deps.conversations.renderWhile(wsId, () => this.steer(adapter, placement, event));
    await this.deps.conversations.renderWhile(wsId, async () => {
      const pending = await this.deps.stores.approvals.listPending(wsId);
      await this.deps.manager.close(wsId, 'closed by user');
      await this.deps.cancelCards(pending.map((row) => row.approvalId));
    });
    await event.respond.reply('Workstream closed.');
    await adapter.post(event.conversation.channelId, { kind: 'notice', code: 'closed' }, this.deps.signal);
    if (event.conversation.kind === 'thread')
      await adapter.archiveThread(event.conversation.channelId, this.deps.signal);
  }

  /** The commands answered with text alone (status, model listing, mcp, and every refusal); undefined for the rest. */
  private async answerOnly(ws: WorkstreamControls, user: Person, event: CommandEvent): Promise<string | undefined> {
    if (event.name === 'status') {
      // Model, token use and pending approvals are the owner's business: anyone else learns nothing about the thread.
      return mayControl(ws.ownerUserId, user) ? statusText(ws, this.deps.models.defaultAlias) : NOT_YOURS;
    }
    if (event.name === 'model' && !event.args.model?.trim()) return this.modelText(ws);
    if (!mayControl(ws.ownerUserId, user)) return 'Only the owner of this workstream can do that.';
    if (event.name === 'mcp') return runMcpCommand(this.deps.mcp, event.args.action ?? '');
    return undefined;
  }

  /** A steer is held to the sender's message limit, as a message is. */
  private async steer(adapter: ChannelAdapter, placement: Placement, event: CommandEvent): Promise<void> {
    const admission = this.deps.limits.admit(`${adapter.platform}:${event.user.id}`, event.args.message ?? '');
    if (!admission.admitted)
      return event.respond.reply(
        admission.notice ?? 'Not sent: you are over the message limit; try again in a moment.',
      );
    return steerTurn(placement, event);
  }

  /** The workstream of a thread, or of a DM conversation (`/close` there ends it; the next DM starts a new one). */
  private async routedWorkstream(adapter: ChannelAdapter, event: CommandEvent): Promise<string | undefined> {
    const routed = event.conversation.kind === 'thread' || event.conversation.kind === 'direct';
    return routed ? this.deps.router.routeFor(adapter.platform, event.conversation.channelId) : undefined;
  }

  private async modelText(ws: WorkstreamControls): Promise<string> {
    const info = await ws.info();
    return `This thread uses \`${info.modelAlias || this.deps.models.defaultAlias}\`. ${this.deps.models.listing()}`;
  }

  /** `/model <alias>` by the owner or an admin: the next turn uses it (a running turn keeps its model). */
  private async switchModel(ws: WorkstreamControls, event: CommandEvent): Promise<void> {
    const chosen = this.deps.models.resolve(event.args.model ?? '');
    if (!chosen.ok) return event.respond.reply(chosen.error);
    if (!(await ws.setModel(chosen.value)))
      return event.respond.reply(`The model \`${chosen.value}\` cannot be used right now.`);
    const when = ws.isBusy() ? ' from the next turn on' : '';
    await event.respond.reply(`This thread now uses \`${chosen.value}\`${when}.`);
  }
}

/** `/cancel` and the Stop button: a Stop that no longer applies (nothing runs, e.g. after a restart) is removed. */
async function cancelTurn(ws: WorkstreamControls, event: CommandEvent): Promise<void> {
  if (!ws.isBusy()) {
    await event.removeControl?.();
    return event.respond.reply('Nothing is running.');
  }
  ws.cancel();
  return event.respond.reply('Cancelling the running turn.');
}

async function statusText(ws: WorkstreamControls, defaultAlias: string): Promise<string> {
  const info = await ws.info();
  return [
    `**Workstream** \`${info.wsId}\` (${info.state})`,
    `Model: ${info.modelAlias || defaultAlias || 'default'}`,
    `Tokens used: ${info.inputTokens} in, ${info.outputTokens} out`,
    `Pending approvals: ${info.pendingApprovals}`,
    `Queued messages: ${info.queuedMessages}`,
  ].join('\n');
}
