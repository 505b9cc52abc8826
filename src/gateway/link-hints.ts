/**
 * The hints a writer the agent does not listen to gets: an unlinked writer (how to link their account, at most once a
 * day per platform identity), and a linked non-owner in someone else's thread (once per thread, privately).
 */
import { LRUCache } from 'lru-cache';
import type { ChannelAdapter, InboundEvent } from '../channels/channel-adapter.js';
import type { Logger } from '../shared/logger.js';
import { whisper } from './channel-features.js';

const HINT_INTERVAL_MS = 24 * 3_600_000;
/** Users remembered for the once-a-day link hint (in memory: after a restart a user may get one more hint). */
const HINT_MEMORY = 4096;

type MessageEvent = Extract<InboundEvent, { type: 'message' }>;

/** The private note for a post the agent ignores because the thread belongs to someone else. */
export const NOT_OWNER_HINT = 'This conversation belongs to the person who started it, so the agent does not read your messages here. Mention the bot in a channel to start your own.';

export class LinkHints {
  private readonly hinted = new LRUCache<string, number>({ max: HINT_MEMORY });
  private readonly notOwnerHinted = new LRUCache<string, true>({ max: HINT_MEMORY });

  constructor(
    private readonly now: () => number,
    private readonly signal: AbortSignal,
    private readonly logger: Logger,
  ) {}

  /** Posts the hint where the writer asked (a mention, a DM), never to a plain message in a thread. */
  async hint(adapter: ChannelAdapter, event: MessageEvent): Promise<void> {
    if (event.conversation.kind === 'thread' && !event.mentioned) return;
    const key = `${adapter.platform}:${event.user.id}`;
    const last = this.hinted.get(key);
    if (last !== undefined && this.now() - last < HINT_INTERVAL_MS) return;
    this.hinted.set(key, this.now());
    await adapter.post(event.conversation.channelId, { kind: 'notice', code: 'link-hint' }, this.signal);
  }

  /** A non-owner's post in an owner-only thread: one private hint per thread and person, never a public reply. */
  async notOwner(adapter: ChannelAdapter, event: MessageEvent): Promise<void> {
    const key = `${adapter.platform}:${event.conversation.channelId}:${event.user.id}`;
    if (this.notOwnerHinted.has(key)) return;
    this.notOwnerHinted.set(key, true);
    const target = { channelId: event.conversation.channelId, userId: event.user.id, replyTo: event.messageId };
    await whisper(adapter, target, NOT_OWNER_HINT, this.signal, this.logger);
  }
}
