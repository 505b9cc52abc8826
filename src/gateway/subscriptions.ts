/** Live bindings workstream → thread: one renderer per workstream, re-bound when the workstream is restored. */
import type { Workstream } from '../agent/workstream-api.js';
import type { ChannelAdapter } from '../channels/channel-adapter.js';
import type { Logger } from '../shared/logger.js';
import type { ApprovalDesk } from './approvals.js';
import { StreamRenderer } from './stream-renderer.js';

export interface Binding {
  ws: Workstream;
  adapter: ChannelAdapter;
  channelId: string;
  renderer: StreamRenderer;
  /** Messages sent to the workstream whose turn has not ended yet. */
  openTurns: number;
  unsubscribe: () => void;
}

export interface SubscriptionOptions {
  logger: Logger;
  desk: () => ApprovalDesk;
  editIntervalMs?: number;
  typingIntervalMs?: number;
}

export class Subscriptions {
  private readonly bindings = new Map<string, Binding>();
  private readonly byChannel = new Map<string, Binding>();

  constructor(private readonly options: SubscriptionOptions) {}

  /** The binding of a workstream, (re)subscribing when the live object changed (eviction, restart). */
  bind(ws: Workstream, adapter: ChannelAdapter, channelId: string): Binding {
    const existing = this.bindings.get(ws.wsId);
    if (existing && existing.ws === ws && existing.channelId === channelId) return existing;
    if (existing) this.release(ws.wsId);
    const renderer = new StreamRenderer({
      adapter,
      channelId,
      logger: this.options.logger.child({ wsId: ws.wsId }),
      ...(this.options.editIntervalMs === undefined ? {} : { editIntervalMs: this.options.editIntervalMs }),
      ...(this.options.typingIntervalMs === undefined ? {} : { typingIntervalMs: this.options.typingIntervalMs }),
      hooks: {
        onApprovalCard: (event) => this.options.desk().postCard(adapter, channelId, event),
        onApprovalResolved: (event) => this.options.desk().onResolved(event),
        onTurnEnd: () => {
          binding.openTurns = Math.max(0, binding.openTurns - 1);
        },
        onClosed: () => this.release(ws.wsId),
      },
    });
    const binding: Binding = { ws, adapter, channelId, renderer, openTurns: 0, unsubscribe: () => undefined };
    binding.unsubscribe = ws.subscribe((event) => renderer.handle(event));
    this.bindings.set(ws.wsId, binding);
    this.byChannel.set(`${adapter.platform}:${channelId}`, binding);
    return binding;
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
    }
  }

  releaseAll(): void {
    for (const wsId of [...this.bindings.keys()]) this.release(wsId);
  }

  get size(): number {
    return this.bindings.size;
  }

  /** Sum of live edits across renderers (benchmarks). */
  all(): Binding[] {
    return [...this.bindings.values()];
  }
}
