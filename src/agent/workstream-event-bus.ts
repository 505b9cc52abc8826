/** Ordered event delivery for one workstream: handlers run strictly one after another; a throwing handler stays subscribed. */
import type { Logger } from '../shared/logger.js';
import { SerialLane } from '../shared/serial-lane.js';
import type { AgentEvent } from './events.js';
import type { AgentEventHandler } from './workstream-api.js';

export class WorkstreamEventBus {
  private readonly handlers = new Set<AgentEventHandler>();
  private readonly lane = new SerialLane();

  constructor(
    private readonly wsId: string,
    private readonly logger: Logger,
  ) {}

  subscribe(handler: AgentEventHandler): () => void {
    // Wrap so the same function can be subscribed twice and unsubscribed independently.
    const entry: AgentEventHandler = (event) => handler(event);
    this.handlers.add(entry);
    return () => {
      this.handlers.delete(entry);
    };
  }

  /**
   * Queues the event for every current subscriber; delivery order equals emit order, with no timer in between (the
   * renderer defers its own cosmetic work, the typing indicator).
   */
  emit(event: AgentEvent): void {
    void this.deliver(event);
  }

  /**
   * `emit`, resolving once every subscriber has shown the event: a subscriber that shows it later (the renderer's
   * final edit of a turn's end) hands back `{ shown }`, which the lane does not wait for (the next events are delivered
   * meanwhile). False when one of them could not show it completely, or failed.
   */
  deliver(event: AgentEvent): Promise<boolean> {
    const targets = [...this.handlers];
    if (targets.length === 0) return Promise.resolve(true);
    const shown: Array<Promise<boolean>> = [];
    const delivered = this.lane.run(async () => {
      for (const handler of targets) {
        if (!this.handlers.has(handler)) continue;
        try {
          const out = await handler(event);
          if (typeof out === 'object' && out !== null) shown.push(out.shown.catch(() => false));
        } catch (error) {
          shown.push(Promise.resolve(false));
          this.logger.error({ wsId: this.wsId, event: event.type, err: error }, 'event handler failed');
        }
      }
    });
    return delivered.then(async () => (await Promise.all(shown)).every(Boolean));
  }

  /** Resolves once every event emitted so far was delivered. */
  flush(): Promise<void> {
    return this.lane.idle();
  }

  get subscriberCount(): number {
    return this.handlers.size;
  }
}
