/** Live bindings workstream → thread: one renderer per busy workstream, released at the workstream's `idle` event. */
import type { AgentEvent } from '../agent/events.js';
import type { Workstream } from '../agent/workstream-api.js';
import type { ChannelAdapter } from '../channels/channel-adapter.js';
import { describeError } from '../shared/errors.js';
import type { Logger } from '../shared/logger.js';
import type { ApprovalDesk } from './approvals.js';
import { StreamRenderer } from './stream-renderer.js';

export interface Binding {
  ws: Workstream;
  adapter: ChannelAdapter;
  channelId: string;
  renderer: StreamRenderer;
  /** Gateway operations running in `renderWhile` on this binding (a send, a click, a command); never released then. */
  rendering: number;
  /**
   * A `turn-start` reached the binding and the drain's `idle` not yet: the workstream may already say it is not busy
   * (it turns quiet before its last events are delivered), but the turn's end is still on its way. Every drain ends
   * in `idle`, a failed turn's too, so this never outlives the turn.
   */
  awaitingIdle: boolean;
  unsubscribe: () => void;
}

export interface SubscriptionOptions {
  logger: Logger;
  desk: () => ApprovalDesk;
  /** Records what a thread shows of its turn in flight (`channel_routes.live_state`), for a restart (ADR 0013). */
  saveLiveState?: (platform: string, channelId: string, state: string | null) => Promise<void>;
  editIntervalMs?: number;
  typingIntervalMs?: number;
}

type Timing = Pick<SubscriptionOptions, 'editIntervalMs' | 'typingIntervalMs'>;

/** The renderer timings set in `options` (tests), without the unset ones. */
export function timingOf(
  options: { editIntervalMs?: number | undefined; typingIntervalMs?: number | undefined } | undefined,
): Timing {
  const timing: Timing = {};
  if (options?.editIntervalMs !== undefined) timing.editIntervalMs = options.editIntervalMs;
  if (options?.typingIntervalMs !== undefined) timing.typingIntervalMs = options.typingIntervalMs;
  return timing;
}

/**
 * Holding a subscription keeps the Workstream object (and its whole history) reachable, so a binding lives only
 * while the workstream has something to show: from the first event of a turn to the `idle` the workstream emits when
 * its queue drained (also after a turn that failed without `turn-end`), or while a gateway operation renders through
 * it (`renderWhile`). Every entry point binds again when needed. No timer and no sweep: the workstream says when.
 */
export class Subscriptions {
  private readonly bindings = new Map<string, Binding>();
  /** Renderers released while their last live-state write may still run (see `settle`). */
  private readonly settling = new Set<StreamRenderer>();
  private readonly byChannel = new Map<string, Binding>();

  constructor(private readonly options: SubscriptionOptions) {}

  /** The binding of a workstream, (re)subscribing when the live object changed (eviction, restart). */
  bind(ws: Workstream, adapter: ChannelAdapter, channelId: string): Binding {
    const existing = this.bindings.get(ws.wsId);
    if (existing && existing.ws === ws && existing.channelId === channelId) return existing;
    const binding = this.attach(ws, adapter, channelId);
    binding.unsubscribe = ws.subscribe((event) => this.onEvent(binding, event));
    return binding;
  }

  /** A new binding with its renderer, replacing the workstream's current one; the caller subscribes it. */
  private attach(ws: Workstream, adapter: ChannelAdapter, channelId: string): Binding {
    if (this.bindings.has(ws.wsId)) this.release(ws.wsId);
    const renderer = new StreamRenderer({
      adapter,
      channelId,
      logger: this.options.logger,
      logBindings: { wsId: ws.wsId },
      ...(this.options.editIntervalMs === undefined ? {} : { editIntervalMs: this.options.editIntervalMs }),
      ...(this.options.typingIntervalMs === undefined ? {} : { typingIntervalMs: this.options.typingIntervalMs }),
      hooks: {
        onApprovalCard: (event) => this.options.desk().postCard(adapter, channelId, event),
        onApprovalResolved: (event) => this.options.desk().onResolved(event),
        onTurnCancelled: (approved) => this.options.desk().onTurnCancelled(approved),
        onClosed: () => this.release(ws.wsId),
        ...(this.options.saveLiveState === undefined
          ? {}
          : { onLiveState: this.saveLiveStateFor(adapter.platform, channelId) }),
      },
    });
    const binding: Binding = {
      ws,
      adapter,
      channelId,
      renderer,
      rendering: 0,
      awaitingIdle: false,
      unsubscribe: () => undefined,
    };
    this.bindings.set(ws.wsId, binding);
    this.byChannel.set(`${adapter.platform}:${channelId}`, binding);
    return binding;
  }

  private saveLiveStateFor(platform: string, channelId: string): (state: string | null) => Promise<void> {
    const save = this.options.saveLiveState;
    return (state) => save?.(platform, channelId, state) ?? Promise.resolve();
  }

  /**
   * Runs a gateway operation (a send, a click, a command) with the binding kept: an `idle` meanwhile does not drop it.
   * Afterwards it goes when the workstream is quiet (nothing started, or the started turns' `idle` already arrived).
   */
  async renderWhile<T>(binding: Binding, work: () => Promise<T>): Promise<T> {
    binding.rendering += 1;
    try {
      return await work();
    } finally {
      binding.rendering -= 1;
      this.releaseWhenQuiet(binding);
    }
  }

  get(wsId: string): Binding | undefined {
    return this.bindings.get(wsId);
  }

  /** The binding rendering into a channel, used to slow its cadence on rate limits. */
  byChannelId(platform: string, channelId: string): Binding | undefined {
    return this.byChannel.get(`${platform}:${channelId}`);
  }

  release(wsId: string): void {
    const binding = this.bindings.get(wsId);
    if (!binding) return;
    this.bindings.delete(wsId);
    const key = `${binding.adapter.platform}:${binding.channelId}`;
    if (this.byChannel.get(key) === binding) this.byChannel.delete(key);
    try {
      binding.unsubscribe();
    } finally {
      binding.renderer.dispose();
      this.settle(binding.renderer);
    }
  }

  /** A released renderer may still be recording its live message (the turn's end): `drainAll` waits for it too. */
  private settle(renderer: StreamRenderer): void {
    this.settling.add(renderer);
    const forget = (): void => void this.settling.delete(renderer);
    renderer.settled().then(forget, forget);
  }

  /**
   * Graceful stop: every binding stops listening at once, and each renderer finishes the platform call in flight and
   * records its live message (bounded by `graceMs`) before it is disposed (ADR 0013).
   */
  async drainAll(graceMs: number): Promise<void> {
    const renderers: StreamRenderer[] = [];
    for (const binding of [...this.bindings.values()]) {
      this.bindings.delete(binding.ws.wsId);
      this.byChannel.delete(`${binding.adapter.platform}:${binding.channelId}`);
      renderers.push(binding.renderer);
      try {
        binding.unsubscribe();
      } catch (error) {
        this.options.logger.warn({ error: describeError(error) }, 'unsubscribing at stop failed');
      }
    }
    renderers.push(...this.settling);
    await Promise.all(renderers.map((renderer) => renderer.drain(graceMs)));
  }

  /** Active subscriptions (for /metrics and tests). */
  get size(): number {
    return this.bindings.size;
  }

  /** Every binding (benchmarks). */
  all(): Binding[] {
    return [...this.bindings.values()];
  }

  /** Bus handler: rendering runs on the renderer's chain; a binding may go once the workstream says it is idle. */
  private onEvent(binding: Binding, event: AgentEvent): { shown: Promise<boolean> } | undefined {
    if (event.type === 'idle') {
      binding.awaitingIdle = false;
      this.releaseWhenQuiet(binding);
      return undefined;
    }
    if (event.type === 'turn-start') binding.awaitingIdle = true;
    const rendered = binding.renderer.handle(event);
    // Only a turn's end is waited for (the turn log ends the turn once its answer is shown); other events stream on.
    return event.type === 'turn-end' ? { shown: rendered } : undefined;
  }

  /**
   * Once everything handed to the renderer is shown, drops the binding if the workstream is still quiet. While the
   * renderer caught up (a slow, rate-limited post), the next turn may have started and ended: its events were handed
   * to the renderer after `idle()` was taken, so the binding goes only when nothing more waits in the renderer. A
   * message accepted but not started yet keeps the workstream busy (`isBusy()`): its drain ends in another `idle`.
   */
  private releaseWhenQuiet(binding: Binding): void {
    if (!isQuiet(binding)) return;
    void binding.renderer
      .idle()
      .then(() => {
        if (this.bindings.get(binding.ws.wsId) !== binding || !isQuiet(binding)) return;
        if (binding.renderer.busy) this.releaseWhenQuiet(binding);
        else this.release(binding.ws.wsId);
      })
      .catch((error: unknown) =>
        this.options.logger.warn({ error: describeError(error) }, 'releasing a subscription failed'),
      );
  }
}

function isQuiet(binding: Binding): boolean {
  return binding.rendering === 0 && !binding.awaitingIdle && !binding.ws.isBusy();
}
