/** A turn's tool calls in the thread: one line per call, edited to its outcome when the result comes. */
import type { AgentEvent } from '../agent/events.js';
import type { ChannelAdapter, OutboundMessage } from '../channels/channel-adapter.js';
import { describeError } from '../shared/errors.js';
import type { Logger } from '../shared/logger.js';
import type { LiveStateRecorder } from './live-state.js';

interface ShownCall {
  messageId: string;
  name: string;
  preview: string;
}

export interface ToolLinesOptions {
  adapter: ChannelAdapter;
  channelId: string;
  signal: AbortSignal;
  logger: () => Logger;
  live: LiveStateRecorder | undefined;
}

export class ToolLines {
  private readonly shown = new Map<string, ShownCall>();

  constructor(private readonly options: ToolLinesOptions) {}

  /** Posts a running line per call; resolves with how many were posted. */
  async postCalls(items: Extract<AgentEvent, { type: 'tool-calls' }>['items']): Promise<number> {
    let posted = 0;
    for (const item of items) {
      const messageId = await this.post({ kind: 'tool-call', name: item.name, preview: item.preview, status: 'running' });
      if (messageId === undefined) continue;
      posted += 1;
      const call = { messageId, name: item.name, preview: item.preview };
      this.shown.set(item.callId, call);
      this.options.live?.toolPosted(item.callId, call);
    }
    return posted;
  }

  /**
   * The call's line shows its outcome; without a line (or when the edit fails) the result is posted on its own. False
   * when nothing could be shown.
   */
  async postResult(event: Extract<AgentEvent, { type: 'tool-result' }>): Promise<boolean> {
    const { adapter, channelId, signal, live } = this.options;
    const shown = this.shown.get(event.callId);
    this.shown.delete(event.callId);
    live?.toolDone(event.callId);
    const status = event.isError ? 'error' : 'done';
    if (shown) {
      const message = { kind: 'tool-call', name: shown.name, preview: shown.preview, status, output: event.output } as const;
      try {
        await adapter.edit(channelId, shown.messageId, message, signal);
        return true;
      } catch (error) {
        this.options.logger().warn({ error: describeError(error) }, 'tool card edit failed');
      }
    }
    return (await this.post({ kind: 'tool-result', name: event.name, output: event.output, isError: event.isError })) !== undefined;
  }

  /** The turn ended: lines still running stay as they are. */
  clear(): void {
    this.shown.clear();
  }

  private async post(message: OutboundMessage): Promise<string | undefined> {
    try {
      return await this.options.adapter.post(this.options.channelId, message, this.options.signal);
    } catch (error) {
      this.options.logger().warn({ kind: message.kind, channelId: this.options.channelId, error: describeError(error) }, 'post failed');
      return undefined;
    }
  }
}
