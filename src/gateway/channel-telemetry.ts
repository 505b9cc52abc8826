/**
 * Wraps channel adapters for traces and metrics without touching them: each inbound event is a root span, each
 * platform call (post, edit, thread, typing…) a child span; it counts 429s, measures message-to-first-edit and
 * reports how many inbound messages are waiting or being routed (queue depth).
 */
import type {
  ChannelAdapter,
  ChannelFeatures,
  InboundEvent,
  InboundHandler,
  NativeStream,
} from '../channels/channel-adapter.js';
import { activeTraceId, metrics, SPAN, withSpan } from '../shared/telemetry.js';

/** Adapter methods that call the platform's API, each traced as one `platform_call` span. */
const PLATFORM_CALLS = new Set(['post', 'edit', 'setTyping', 'react', 'startThread', 'archiveThread']);
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
    wrap: (adapter) => {
      const features = tracedFeatures(adapter.platform, adapter.features, onAnswerCall);
      return new Proxy(adapter, {
        get(target, property) {
          if (property === 'features') return features;
          const value: unknown = Reflect.get(target, property);
          if (typeof value !== 'function') return value;
          const method = value as (...args: unknown[]) => unknown;
          if (property === 'start') {
            return (handler: InboundHandler, signal: AbortSignal) =>
              target.start(traced(target.platform, handler), signal);
          }
          if (typeof property !== 'string' || !PLATFORM_CALLS.has(property)) return method.bind(target);
          return (...args: unknown[]) => {
            if (ANSWER_CALLS.has(property)) onAnswerCall(target.platform);
            return platformCall(target.platform, property, async () => method.apply(target, args));
          };
        },
      });
    },
  };
}

function platformCall<T>(platform: string, operation: string, call: () => Promise<T>): Promise<T> {
  return withSpan(
    SPAN.platformCall,
    { 'sandpiper.platform': platform, 'sandpiper.platform.operation': operation },
    call,
  );
}

/** The features whose calls reach the platform (DMs, private notes, native streams), traced like the core calls. */
function tracedFeatures(
  platform: string,
  features: ChannelFeatures,
  onAnswerCall: (platform: string) => void,
): ChannelFeatures {
  const { streaming, ephemeral, direct } = features;
  const end = streaming?.end?.bind(streaming);
  return {
    ...features,
    ...(streaming && {
      streaming: {
        open: (channelId: string) => {
          const stream = streaming.open(channelId);
          return stream && tracedStream(platform, stream, onAnswerCall);
        },
        ...(end && {
          end: (channelId: string, messageId: string, signal: AbortSignal) =>
            platformCall(platform, 'stream.end', () => end(channelId, messageId, signal)),
        }),
      },
    }),
    ...(ephemeral && {
      ephemeral: { whisper: (...args) => platformCall(platform, 'whisper', () => ephemeral.whisper(...args)) },
    }),
    ...(direct && {
      direct: {
        conversations: direct.conversations,
        open: (userId, signal) => platformCall(platform, 'openDirect', () => direct.open(userId, signal)),
      },
    }),
  };
}

/** A native stream whose appends count as answer calls and, like its finish, are traced as platform calls. */
function tracedStream(platform: string, stream: NativeStream, onAnswerCall: (platform: string) => void): NativeStream {
  const span = (operation: string, call: () => Promise<void>): Promise<void> => platformCall(platform, operation, call);
  return {
    get messageCount() {
      return stream.messageCount;
    },
    get messageIds() {
      return stream.messageIds;
    },
    append: (text, signal) => {
      onAnswerCall(platform);
      return span('stream.append', () => stream.append(text, signal));
    },
    finish: (signal, key) => span('stream.finish', () => stream.finish(signal, key)),
  };
}

function remember(openTraces: Map<string, number>, traceId: string): void {
  if (openTraces.size >= MAX_OPEN_TRACES) {
    const oldest = openTraces.keys().next().value;
    if (oldest !== undefined) openTraces.delete(oldest);
  }
  openTraces.set(traceId, performance.now());
}
