/** An adapter whose posts are reported after they land, so the gateway can remember them (notification replies). */
import type { ChannelAdapter, CommandName, InboundHandler, OutboundMessage, ReactionCode, ThreadOrigin } from '../channels/channel-adapter.js';

/** Called with every message posted through the wrapper; it must not throw (the post already happened). */
export type PostRecorder = (channelId: string, messageId: string) => Promise<void>;

/**
 * Wraps `inner` so that every successful `post` is handed to `record` before it resolves. Everything else is passed
 * through unchanged: the wrapper is what a renderer posts an exchange through, never a second connection.
 */
export function trackPosts(inner: ChannelAdapter, record: PostRecorder): ChannelAdapter {
  return new TrackedAdapter(inner, record);
}

class TrackedAdapter implements ChannelAdapter {
  constructor(
    private readonly inner: ChannelAdapter,
    private readonly record: PostRecorder,
  ) {}

  get platform(): string {
    return this.inner.platform;
  }

  get capabilities(): ChannelAdapter['capabilities'] {
    return this.inner.capabilities;
  }

  get threadParticipants(): 'owner' | 'linked' {
    return this.inner.threadParticipants;
  }

  get features(): ChannelAdapter['features'] {
    return this.inner.features;
  }

  start(handler: InboundHandler, signal: AbortSignal): Promise<void> {
    return this.inner.start(handler, signal);
  }

  stop(): Promise<void> {
    return this.inner.stop();
  }

  state(): ReturnType<ChannelAdapter['state']> {
    return this.inner.state();
  }

  async post(channelId: string, message: OutboundMessage, signal: AbortSignal): Promise<string> {
    const messageId = await this.inner.post(channelId, message, signal);
    await this.record(channelId, messageId);
    return messageId;
  }

  edit(channelId: string, messageId: string, message: OutboundMessage, signal: AbortSignal): Promise<void> {
    return this.inner.edit(channelId, messageId, message, signal);
  }

  setTyping(channelId: string, signal: AbortSignal): Promise<void> {
    return this.inner.setTyping(channelId, signal);
  }

  async react(channelId: string, messageId: string, reaction: ReactionCode, signal: AbortSignal): Promise<void> {
    await this.inner.react(channelId, messageId, reaction, signal);
  }

  commandText(name: CommandName): string {
    return this.inner.commandText(name);
  }

  startThread(channelId: string, name: string, origin: ThreadOrigin, signal: AbortSignal): Promise<string> {
    return this.inner.startThread(channelId, name, origin, signal);
  }

  archiveThread(threadId: string, signal: AbortSignal): Promise<void> {
    return this.inner.archiveThread(threadId, signal);
  }
}
