/** Prometheus metrics: process defaults plus an HTTP request histogram and gateway gauges. */
import { collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';

export interface HttpMetrics {
  registry: Registry;
  requestDuration: Histogram<'method' | 'route' | 'status'>;
}

export interface GaugeSources {
  /** Live workstreams and running turns. */
  workstreams?: () => { active: number; running: number };
  /** Workstreams the channel gateway is subscribed to (busy ones; quiet ones are released). */
  subscriptions?: () => number;
}

/**
 * How often the process metrics' event-loop lag histogram (`nodejs_eventloop_lag_*`) samples the loop, in ms. The
 * library's 10 ms wakes an idle gateway 100 times a second, about 9 ms of CPU a second for the sampling alone; at
 * 100 ms a scrape interval of 15 s still holds 150 samples, and each sample still measures the delay to the nanosecond.
 */
export const EVENT_LOOP_SAMPLE_MS = 100;

export function createHttpMetrics(sources: GaugeSources = {}): HttpMetrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, eventLoopMonitoringPrecision: EVENT_LOOP_SAMPLE_MS });
  const requestDuration = new Histogram({
    name: 'sandpiper_http_request_duration_seconds',
    help: 'HTTP request duration by method, route and status',
    labelNames: ['method', 'route', 'status'] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [registry],
  });
  const workstreams = sources.workstreams;
  if (workstreams) {
    new Gauge({
      name: 'sandpiper_workstreams_active',
      help: 'Workstreams held in memory',
      registers: [registry],
      collect() {
        this.set(workstreams().active);
      },
    });
    new Gauge({
      name: 'sandpiper_turns_running',
      help: 'Turns currently running',
      registers: [registry],
      collect() {
        this.set(workstreams().running);
      },
    });
  }
  const subscriptions = sources.subscriptions;
  if (subscriptions) {
    new Gauge({
      name: 'sandpiper_gateway_subscriptions',
      help: 'Workstreams the channel gateway is subscribed to',
      registers: [registry],
      collect() {
        this.set(subscriptions());
      },
    });
  }
  return { registry, requestDuration };
}
