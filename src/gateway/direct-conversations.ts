/**
 * Direct messages as conversations: a top-level DM continues the writer's DM conversation (one workstream routed
 * from the DM channel) until it is closed (`/close`) or has been quiet for `gateway.dm_idle_hours`; then the next DM
 * starts a new one. A message that answers another (a Slack DM thread, a Discord reply) is routed by its own place:
 * a Slack DM thread is a conversation of its own, and it never goes idle. The old workstream is left as it is (it may
 * still be reached by replies to its notifications).
 */
import type { Workstream } from '../agent/workstream-api.js';
import type { ChannelAdapter } from '../channels/channel-adapter.js';
import { truncate } from '../channels/format/truncate.js';
import { directConversations } from './channel-features.js';
import type { ConversationDeps, MessageEvent } from './conversation-deps.js';
import type { LinkedUser } from './router.js';

const HOUR_MS = 3_600_000;

export interface DirectConversationDeps extends ConversationDeps {
  /** Quiet hours after which a top-level DM starts a new conversation (`gateway.dm_idle_hours`). */
  idleHours: number;
}

export class DirectConversations {
  constructor(private readonly deps: DirectConversationDeps) {}

  /** Routes a DM that is not a notification reply: into the DM conversation, or the hint when DMs are turned off. */
  async route(adapter: ChannelAdapter, event: MessageEvent): Promise<void> {
    const channelId = event.conversation.channelId;
    if (!directConversations(adapter)) {
      // As before DMs were conversations: a reply to something we no longer track is told so, anything else the hint.
      const code = event.replyTo === undefined ? 'dm-unsupported' : 'notification-inactive';
      await adapter.post(channelId, { kind: 'notice', code }, this.deps.signal);
      return;
    }
    const user = await this.deps.router.linkedUser(adapter.platform, event.user.id);
    if (!user) return this.deps.hintUnlinked(adapter, event);
    const text = event.text || 'Hello';
    const ws = await this.conversation(adapter.platform, channelId, user, text, event.replyTo === undefined);
    await this.deps.send(adapter, channelId, ws, text, event);
  }

  /** The DM's live conversation, or a new one when there is none, it is closed, not the writer's, or went idle. */
  private async conversation(platform: string, channelId: string, user: LinkedUser, text: string, topLevel: boolean): Promise<Workstream> {
    const { router } = this.deps;
    const wsId = await router.routeFor(platform, channelId);
    const name = truncate(text.replace(/\s+/g, ' '), 100);
    if (wsId === undefined) return router.createForThread(platform, channelId, user.userId, name);
    const ws = await router.open(wsId);
    if (ws && ws.ownerUserId === user.userId && !(topLevel && (await this.wentIdle(ws)))) return ws;
    this.deps.logger.info({ platform, oldWsId: wsId, reason: ws ? 'idle or another owner' : 'closed' }, 'starting a new DM conversation');
    return router.replaceRoute(platform, channelId, user.userId, name);
  }

  private async wentIdle(ws: Workstream): Promise<boolean> {
    if (ws.isBusy()) return false;
    const row = await this.deps.stores.workstreams.get(ws.wsId);
    if (!row) return false;
    return this.deps.now() - Date.parse(`${row.updated.replace(/Z$/, '')}Z`) > this.deps.idleHours * HOUR_MS;
  }
}
