/**
 * A thread's session status where the platform shows one (Slack agent sessions): statuses go out in order on a lane
 * of their own, apart from the rendering lane, so they never hold up the answer (a platform round trip before the
 * first token otherwise). A platform without sessions makes this a no-op; a failed call is logged, never fatal.
 */
import type { ChannelAdapter, SessionStatus } from '../channels/channel-adapter.js';
import { describeError } from '../shared/errors.js';
import type { Logger } from '../shared/logger.js';
import { SerialLane } from '../shared/serial-lane.js';
import { sessionStatus } from './channel-features.js';

export class SessionStatusLane {
  private readonly lane = new SerialLane();

  constructor(
    private readonly adapter: ChannelAdapter,
    private readonly channelId: string,
    private readonly signal: AbortSignal,
    private readonly logger: () => Logger,
  ) {}

  /** Queues one status after the ones before it. */
  send(status: SessionStatus, title?: string): void {
    const { adapter, channelId } = this;
    if (!adapter.features.sessions) return;
    void this.lane
      .run(async () => sessionStatus(adapter, channelId, status, title, this.signal))
      .catch((error: unknown) => this.logger().warn({ channelId, status, error: describeError(error) }, 'session status failed'));
  }

  /** Resolves once every status queued so far has been sent (or failed). */
  idle(): Promise<void> {
    return this.lane.idle();
  }

  get size(): number {
    return this.lane.size;
  }
}
