/** Who asked in which Slack thread: slash commands carry no thread, and Slack streams only to a named recipient. A cache only. */
import { LRUCache } from 'lru-cache';
import { threadKey } from './slack-events.js';

const RECENT_THREADS = 4_096;

export class SlackThreadMemory {
  /** `<channel>:<user>` → the user's latest thread there. */
  private readonly recentThreads = new LRUCache<string, string>({ max: RECENT_THREADS });
  /** Thread key → who last asked there. */
  private readonly askers = new LRUCache<string, string>({ max: RECENT_THREADS });

  remember(channel: string, userId: string, threadTs: string): void {
    this.recentThreads.set(`${channel}:${userId}`, threadTs);
    this.askers.set(threadKey(channel, threadTs), userId);
  }

  /** The user's most recent thread in a channel. */
  recent(channel: string, userId: string): string | undefined {
    return this.recentThreads.get(`${channel}:${userId}`);
  }

  /** Who last asked in a thread (a route key). */
  asker(threadId: string): string | undefined {
    return this.askers.get(threadId);
  }
}
