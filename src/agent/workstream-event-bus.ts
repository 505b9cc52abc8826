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
   * Queues the event for every current subscriber; delivery order equals emit order. `turn-start` (and so everything
   * after it) is delivered after an immediate: it is emitted just before the turn builds its model request, and what
   * subscribers do with it (the renderer's typing indicator, a platform call) would otherwise run between that
   * request's creation and its bytes reaching the socket (ADR 0033).
   */
  emit(event: AgentEvent): void {
    void this.deliver(event);
  }

  /**
   * `emit`, resolving once every subscriber handled the event: false when one of them reports (by resolving with
   * `false`) that it could not show it completely, or failed. A subscriber may resolve only once its output is shown
   * (the renderer does for `turn-end`: the answer's final edit landed), which is what the turn log waits for.
   */
  deliver(event: AgentEvent): Promise<boolean> {
    const targets = [...this.handlers];
    if (targets.length === 0) return Promise.resolve(true);
    return this.lane.run(async () => {
      if (event.type === 'turn-start') await new Promise<void>((resolve) => setImmediate(resolve));
      let complete = true;
      for (const handler of targets) {
        if (!this.handlers.has(handler)) continue;
        try {
          if ((await handler(event)) === false) complete = false;
        } catch (error) {
          complete = false;
          this.logger.error({ wsId: this.wsId, event: event.type, err: error }, 'event handler failed');
        }
      }
      return complete;
    });
  }

  /** Resolves once every event emitted so far was delivered. */
  flush(): Promise<void> {
    return this.lane.idle();
  }

  get subscriberCount(): number {
    return this.handlers.size;
  }
}
