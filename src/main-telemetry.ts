/**
 * The OpenTelemetry SDK (composition root only): when `telemetry.otlp_endpoint` is set, registers a Node tracer
 * provider that batches spans to `<endpoint>/v1/traces` over OTLP/HTTP. Without it nothing is registered and the
 * `@opentelemetry/api` calls in the code stay no-ops.
 */
import { context, propagation, trace } from '@opentelemetry/api';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BatchSpanProcessor, NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import type { Config } from './config/index.js';
import type { Logger } from './shared/logger.js';

export interface Tracing {
  /** Flushes the spans still buffered and unregisters the provider. */
  shutdown(): Promise<void>;
}

/** `<endpoint>/v1/traces`, unless the endpoint already names that path. */
export function tracesUrl(endpoint: string): string {
  const base = endpoint.replace(/\/+$/, '');
  return base.endsWith('/v1/traces') ? base : `${base}/v1/traces`;
}

export function startTracing(config: Config, logger: Logger): Tracing | undefined {
  const endpoint = config.telemetry.otlp_endpoint;
  if (endpoint === undefined) return undefined;
  const exporter = new OTLPTraceExporter({ url: tracesUrl(endpoint), timeoutMillis: 10_000 });
  const provider = new NodeTracerProvider({
    resource: resourceFromAttributes({ 'service.name': 'sandpiper' }),
    spanProcessors: [new BatchSpanProcessor(exporter, { scheduledDelayMillis: 1000 })],
  });
  provider.register();
  logger.info({ endpoint: new URL(tracesUrl(endpoint)).origin }, 'tracing enabled (OTLP/HTTP)');
  return {
    shutdown: async () => {
      await provider.forceFlush().catch((error: unknown) => logger.warn({ err: error }, 'flushing spans failed'));
      await provider.shutdown();
      // Back to the no-op API, so a later gateway in the same process (tests) can register its own provider.
      trace.disable();
      context.disable();
      propagation.disable();
    },
  };
}
