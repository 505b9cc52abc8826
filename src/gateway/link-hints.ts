/** The hint an unlinked writer gets (how to link their account), at most once a day per platform identity. */
import { LRUCache } from 'lru-cache';
import type { ChannelAdapter, InboundEvent } from '../channels/channel-adapter.js';

const HINT_INTERVAL_MS = 24 * 3_600_000;
/** Users remembered for the once-a-day link hint (in memory: after a restart a user may get one more hint). */
const HINT_MEMORY = 4096;

type MessageEvent = Extract<InboundEvent, { type: 'message' }>;

export class LinkHints {
  private readonly hinted = new LRUCache<string, number>({ max: HINT_MEMORY });

  constructor(
    private readonly now: () => number,
    private readonly signal: AbortSignal,
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
}
