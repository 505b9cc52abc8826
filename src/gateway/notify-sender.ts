/** Delivers notify-endpoint messages through the running channel adapters. */
import type { ChannelAdapter } from '../channels/channel-adapter.js';
import { ChannelError } from '../shared/errors.js';
import { openDirect } from './channel-features.js';
import type { NotifyDestination, NotifySender } from './http/routes/notify.js';

/** Direct-message channels remembered (a platform keeps one per user, so opening it again returns the same id). */
const DM_CACHE_LIMIT = 4096;

export function createAdapterNotifySender(adapters: readonly ChannelAdapter[]): NotifySender {
  const byPlatform = new Map(adapters.map((adapter) => [adapter.platform, adapter]));
  const directChannels = new Map<string, string>();

  async function directChannel(adapter: ChannelAdapter, userId: string, signal: AbortSignal): Promise<string> {
    const key = `${adapter.platform}:${userId}`;
    const cached = directChannels.get(key);
    if (cached !== undefined) return cached;
    const channelId = await openDirect(adapter, userId, signal);
    directChannels.set(key, channelId);
    if (directChannels.size > DM_CACHE_LIMIT) {
      const oldest = directChannels.keys().next().value;
      if (oldest !== undefined) directChannels.delete(oldest);
    }
    return channelId;
  }

  return {
    has: (channelType) => byPlatform.has(channelType),
    async send(channelType: string, destination: NotifyDestination, content: string, signal: AbortSignal) {
      const adapter = byPlatform.get(channelType);
      if (!adapter) throw new ChannelError(`no ${channelType} adapter`);
      const channelId = 'channelId' in destination ? destination.channelId : await directChannel(adapter, destination.userId, signal);
      try {
        const messageId = await adapter.post(channelId, { kind: 'text', text: content }, signal);
        return { messageId, channelId };
      } catch (error) {
        // A failed post may mean the remembered channel is gone: the next notification opens it again.
        if ('userId' in destination) directChannels.delete(`${channelType}:${destination.userId}`);
        throw error;
      }
    },
  };
}
