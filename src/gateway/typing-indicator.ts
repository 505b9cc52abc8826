/** The platform's "typing…" indicator while a turn works: refreshed on a timer, stopped while a card waits. */
import type { ChannelAdapter } from '../channels/channel-adapter.js';

const TYPING_REFRESH_MS = 8000;

export class TypingIndicator {
  private timer: NodeJS.Timeout | undefined;
  private kick: NodeJS.Immediate | undefined;

  constructor(
    private readonly adapter: ChannelAdapter,
    private readonly channelId: string,
    private readonly signal: AbortSignal,
    private readonly intervalMs = TYPING_REFRESH_MS,
  ) {}

  /** Starts showing it (nothing when it shows already). Best effort: a failed call is ignored. */
  start(): void {
    if (this.timer !== undefined || this.signal.aborted) return;
    const tick = (): void => {
      void this.adapter.setTyping(this.channelId, this.signal).catch(() => undefined);
    };
    // Purpose: deprioritising, not ordering. The first indicator goes out after the work already under way (a starting
    // turn's model request): the request is what the writer waits for, the indicator is cosmetic.
    this.kick = setImmediate(tick);
    // Purpose: heartbeat (the platform shows the indicator for a few seconds only).
    this.timer = setInterval(tick, this.intervalMs);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer !== undefined) clearInterval(this.timer);
    if (this.kick !== undefined) clearImmediate(this.kick);
    this.timer = undefined;
    this.kick = undefined;
  }
}
