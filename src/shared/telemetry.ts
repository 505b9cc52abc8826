/**
 * Tracing and metrics seams. Code records through these helpers only: spans go to the OpenTelemetry API (a no-op until
 * the composition root registers an SDK, i.e. when `telemetry.otlp_endpoint` is set), numbers go to a sink the
 * composition root installs (Prometheus); without one, recording does nothing.
 */
import {
  INVALID_SPAN_CONTEXT,
  ProxyTracerProvider,
  SpanStatusCode,
  trace,
  type Attributes,
  type Span,
  type TracerProvider,
} from '@opentelemetry/api';

export const TRACER_NAME = 'sandpiper';

/** Span names (one per seam), so tests and dashboards agree on them. */
export const SPAN = {
  inbound: 'sandpiper.inbound',
  route: 'sandpiper.route',
  turn: 'sandpiper.turn',
  modelCall: 'sandpiper.model_call',
  toolCall: 'sandpiper.tool_call',
  mcpCall: 'sandpiper.mcp_call',
  approvalWait: 'sandpiper.approval_wait',
  platformCall: 'sandpiper.platform_call',
} as const;

/** What the metrics side records; every method is cheap and never throws. */
export interface TelemetrySink {
  turnEnded(seconds: number, reason: string): void;
  modelCall(
    model: string,
    seconds: number,
    outcome: string,
    usage?: { inputTokens: number; outputTokens: number },
  ): void;
  toolCall(tool: string, seconds: number, failed: boolean): void;
  mcpCall(server: string, outcome: string): void;
  firstEdit(platform: string, seconds: number): void;
  platformRateLimited(platform: string): void;
}

const NO_SINK: TelemetrySink = {
  turnEnded: () => undefined,
  modelCall: () => undefined,
  toolCall: () => undefined,
  mcpCall: () => undefined,
  firstEdit: () => undefined,
  platformRateLimited: () => undefined,
};

let sink: TelemetrySink = NO_SINK;

/** Installs the metrics sink (composition root); `undefined` restores the no-op. Records are applied deferred. */
export function setTelemetrySink(next: TelemetrySink | undefined): void {
  sink = next === undefined ? NO_SINK : deferred(next);
}

/**
 * A sink that applies each record on the next turn of the event loop. A histogram observation (labels, buckets)
 * costs tens of microseconds, and the records fall at the moments a user waits on: a model stream's end, right
 * before the final edit is sent (ADR 0031). A scrape sees a record about a millisecond later.
 */
function deferred(target: TelemetrySink): TelemetrySink {
  let queue: Array<() => void> = [];
  let timer: NodeJS.Timeout | undefined;
  const apply = (): void => {
    timer = undefined;
    const records = queue;
    queue = [];
    for (const record of records) {
      try {
        record();
      } catch {
        // A sink never throws; a record that does is dropped rather than break the others.
      }
    }
  };
  const later = (record: () => void): void => {
    queue.push(record);
    if (timer === undefined) {
      // Purpose: deprioritising metrics, not ordering (nothing waits for a record; a scrape sees it later).
      timer = setTimeout(apply, 0);
      timer.unref();
    }
  };
  return {
    turnEnded: (...args) => later(() => target.turnEnded(...args)),
    modelCall: (...args) => later(() => target.modelCall(...args)),
    toolCall: (...args) => later(() => target.toolCall(...args)),
    mcpCall: (...args) => later(() => target.mcpCall(...args)),
    firstEdit: (...args) => later(() => target.firstEdit(...args)),
    platformRateLimited: (...args) => later(() => target.platformRateLimited(...args)),
  };
}

export function metrics(): TelemetrySink {
  return sink;
}

/** What the API's global provider delegates to while no SDK is registered (a fresh proxy's delegate is that no-op). */
const NOOP_PROVIDER: TracerProvider = new ProxyTracerProvider().getDelegate();
/** The span handed to `work` while nothing records: every call on it does nothing. */
const NOT_RECORDING: Span = trace.wrapSpanContext(INVALID_SPAN_CONTEXT);

/** No SDK is registered (`telemetry.otlp_endpoint` unset): spans would be no-ops, so none is made. */
function tracingOff(): boolean {
  const provider = trace.getTracerProvider();
  return provider instanceof ProxyTracerProvider && provider.getDelegate() === NOOP_PROVIDER;
}

/**
 * Runs `work` inside a new active span (a child of the active one): exceptions are recorded and rethrown, the span
 * always ends. With no SDK registered, `work` runs directly with a span that records nothing: the API's no-op
 * path (a tracer, a span and a context per call) cost measurable time on every message (ADR 0031).
 */
export function withSpan<T>(name: string, attributes: Attributes, work: (span: Span) => Promise<T>): Promise<T> {
  if (tracingOff()) {
    try {
      return work(NOT_RECORDING);
    } catch (error) {
      return Promise.reject(error);
    }
  }
  return trace.getTracer(TRACER_NAME).startActiveSpan(name, { attributes }, async (span) => {
    try {
      return await work(span);
    } catch (error) {
      recordFailure(span, error);
      throw error;
    } finally {
      span.end();
    }
  });
}

/** A span that is a child of the active one but not made active (streams, where the caller drives the work). */
export function startSpan(name: string, attributes: Attributes): Span {
  if (tracingOff()) return NOT_RECORDING;
  return trace.getTracer(TRACER_NAME).startSpan(name, { attributes });
}

/** Records a thrown error on a span: its class and message only (messages of our errors carry no secrets). */
export function recordFailure(span: Span, error: unknown): void {
  span.recordException(error instanceof Error ? { name: error.name, message: error.message } : String(error));
  span.setStatus({ code: SpanStatusCode.ERROR, message: error instanceof Error ? error.name : 'error' });
}

/** Marks a span failed without an exception (a tool's `isError` result, an error turn). */
export function markFailed(span: Span, message: string): void {
  span.setStatus({ code: SpanStatusCode.ERROR, message });
}

/** The active trace and span ids for log lines (`trace_id`, `span_id`), or nothing outside a sampled span. */
export function traceFields(): { trace_id?: string; span_id?: string } {
  if (tracingOff()) return {};
  const active = trace.getActiveSpan();
  if (!active) return {};
  const { traceId, spanId, traceFlags } = active.spanContext();
  return traceFlags & 1 ? { trace_id: traceId, span_id: spanId } : {};
}

/** The active trace id, or undefined. */
export function activeTraceId(): string | undefined {
  return traceFields().trace_id;
}

/** Seconds since `startedMs` (performance.now() clock). */
export function secondsSince(startedMs: number): number {
  return (performance.now() - startedMs) / 1000;
}
