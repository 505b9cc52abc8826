/** Delivers notify-endpoint messages through the running channel adapters. */
import type { ChannelAdapter } from '../channels/channel-adapter.js';
import { ChannelError } from '../shared/errors.js';
import type { NotifyDestination, NotifySender } from './http/routes/notify.js';

export function createAdapterNotifySender(adapters: readonly ChannelAdapter[]): NotifySender {
  const byPlatform = new Map(adapters.map((adapter) => [adapter.platform, adapter]));
  return {
    has: (channelType) => byPlatform.has(channelType),
    async send(channelType: string, destination: NotifyDestination, content: string, signal: AbortSignal) {
      const adapter = byPlatform.get(channelType);
      if (!adapter) throw new ChannelError(`no ${channelType} adapter`);
      let channelId: string;
      if ('channelId' in destination) channelId = destination.channelId;
      else if (adapter.openDirect) channelId = await adapter.openDirect(destination.userId, signal);
      else throw new ChannelError(`${channelType} cannot send direct messages`);
      const messageId = await adapter.post(channelId, { kind: 'text', text: content }, signal);
      return { messageId, channelId };
    },
  };
}
