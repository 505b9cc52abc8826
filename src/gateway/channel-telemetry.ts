/**
 * Wraps channel adapters for traces and metrics without touching them: each inbound event is a root span, each
 * platform call (post, edit, thread, typing…) a child span; it counts 429s, measures message-to-first-edit and
 * reports how many inbound messages are waiting or being routed (queue depth).
 */
import type { ChannelAdapter, InboundEvent, InboundHandler, NativeStream } from '../channels/channel-adapter.js';
import { activeTraceId, metrics, SPAN, withSpan } from '../shared/telemetry.js';

/** Adapter methods that call the platform's API, each traced as one `platform_call` span. */
const PLATFORM_CALLS = new Set(['post', 'edit', 'setTyping', 'react', 'startThread', 'archiveThread', 'openDirect', 'whisper']);
/** Calls that show the answer: the first of them in a message's trace ends the message-to-first-edit interval. */
const ANSWER_CALLS = new Set(['post', 'edit']);
const MAX_OPEN_TRACES = 1000;

export interface ChannelTelemetry {
  /** The adapter with tracing around its handler and platform calls; every other member is the adapter's own. */
  wrap(adapter: ChannelAdapter): ChannelAdapter;
  /** Inbound messages being handled or waiting in the per-thread queue, over every adapter. */
  queueDepth(): number;
}

export function createChannelTelemetry(): ChannelTelemetry {
  let inFlight = 0;
  /** Trace id of an inbound message → when it arrived (performance.now()), until its first answer call. */
  const openTraces = new Map<string, number>();

  const onAnswerCall = (platform: string): void => {
    const traceId = activeTraceId();
    const arrived = traceId === undefined ? undefined : openTraces.get(traceId);
    if (traceId === undefined || arrived === undefined) return;
    openTraces.delete(traceId);
    metrics().firstEdit(platform, (performance.now() - arrived) / 1000);
  };

  const traced = (platform: string, handler: InboundHandler): InboundHandler => {
    return async (event: InboundEvent) => {
      if (event.type === 'rate-limited') {
        metrics().platformRateLimited(platform);
        return handler(event);
      }
      const isMessage = event.type === 'message';
      if (isMessage) inFlight += 1;
      try {
        await withSpan(SPAN.inbound, { 'sandpiper.platform': platform, 'sandpiper.event': event.type }, async () => {
          const traceId = activeTraceId();
          if (isMessage && traceId !== undefined) remember(openTraces, traceId);
          await handler(event);
        });
      } finally {
        if (isMessage) inFlight -= 1;
      }
    };
  };

  return {
    queueDepth: () => inFlight,
    wrap: (adapter) =>
      new Proxy(adapter, {
        get(target, property) {
          const value: unknown = Reflect.get(target, property);
          if (typeof value !== 'function') return value;
          const method = value as (...args: unknown[]) => unknown;
          if (property === 'start') {
            return (handler: InboundHandler, signal: AbortSignal) => target.start(traced(target.platform, handler), signal);
          }
          if (property === 'openStream') {
            return (channelId: string) => {
              const stream = target.openStream?.(channelId);
              return stream && tracedStream(target.platform, stream, onAnswerCall);
            };
          }
          if (typeof property !== 'string' || !PLATFORM_CALLS.has(property)) return method.bind(target);
          return (...args: unknown[]) => {
            if (ANSWER_CALLS.has(property)) onAnswerCall(target.platform);
            const attributes = { 'sandpiper.platform': target.platform, 'sandpiper.platform.operation': property };
            return withSpan(SPAN.platformCall, attributes, async () => method.apply(target, args));
          };
        },
      }),
  };
}

/** A native stream whose appends count as answer calls and, like its finish, are traced as platform calls. */
function tracedStream(platform: string, stream: NativeStream, onAnswerCall: (platform: string) => void): NativeStream {
  const span = (operation: string, call: () => Promise<void>): Promise<void> =>
    withSpan(SPAN.platformCall, { 'sandpiper.platform': platform, 'sandpiper.platform.operation': operation }, call);
  return {
    get messageCount() {
      return stream.messageCount;
    },
    append: (text, signal) => {
      onAnswerCall(platform);
      return span('stream.append', () => stream.append(text, signal));
    },
    finish: (signal) => span('stream.finish', () => stream.finish(signal)),
  };
}

function remember(openTraces: Map<string, number>, traceId: string): void {
  if (openTraces.size >= MAX_OPEN_TRACES) {
    const oldest = openTraces.keys().next().value;
    if (oldest !== undefined) openTraces.delete(oldest);
  }
  openTraces.set(traceId, performance.now());
}
