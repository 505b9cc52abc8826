/** Prometheus series behind the telemetry sink: turn and first-edit latency, model, tool, MCP, approvals, queue, 429s. */
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import type { TelemetrySink } from '../../shared/telemetry.js';

export interface TelemetryGaugeSources {
  /** Pending approvals (read from the approvals table at scrape time). */
  approvalsPending?: () => Promise<number>;
  /** Inbound messages being handled or waiting in the per-thread queues. */
  queueDepth?: () => number;
}

const LATENCY_BUCKETS = [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300];

function gauges(registry: Registry, sources: TelemetryGaugeSources): void {
  const { approvalsPending, queueDepth } = sources;
  if (approvalsPending) {
    new Gauge({
      name: 'sandpiper_approvals_pending',
      help: 'Approval requests waiting for a decision',
      registers: [registry],
      async collect() {
        this.set(await approvalsPending().catch(() => 0));
      },
    });
  }
  if (queueDepth) {
    new Gauge({
      name: 'sandpiper_inbound_queue_depth',
      help: 'Inbound messages being routed or waiting in the per-thread queues',
      registers: [registry],
      collect() {
        this.set(queueDepth());
      },
    });
  }
}

/** The histograms and counters the sink feeds, registered on `registry`. */
function createSeries(registry: Registry) {
  const registers = [registry];
  const histogram = <L extends string>(name: string, help: string, labelNames: readonly L[]) =>
    new Histogram<L>({ name, help, labelNames, buckets: LATENCY_BUCKETS, registers });
  const counter = <L extends string>(name: string, help: string, labelNames: readonly L[]) =>
    new Counter<L>({ name, help, labelNames, registers });
  return {
    firstEdit: histogram(
      'sandpiper_message_first_edit_seconds',
      'Inbound message to the first post or edit of the answer',
      ['platform'],
    ),
    turn: histogram('sandpiper_turn_duration_seconds', 'Turn latency by end reason', ['reason']),
    model: histogram('sandpiper_model_call_duration_seconds', 'Model call latency by model and outcome', [
      'model',
      'outcome',
    ]),
    tokens: counter('sandpiper_model_tokens_total', 'Tokens by model and kind (input, output)', ['model', 'kind']),
    tool: histogram('sandpiper_tool_duration_seconds', 'Tool call duration by tool', ['tool']),
    toolFailures: counter('sandpiper_tool_failures_total', 'Tool calls that failed, by tool', ['tool']),
    mcp: counter('sandpiper_mcp_calls_total', 'Requests to MCP servers by server and outcome', ['server', 'outcome']),
    rateLimited: counter('sandpiper_platform_rate_limited_total', 'HTTP 429 answers from a chat platform', [
      'platform',
    ]),
  };
}

/** Registers the series on `registry` and returns the sink that feeds them. */
export function createTelemetryMetrics(registry: Registry, sources: TelemetryGaugeSources = {}): TelemetrySink {
  const { firstEdit, turn, model, tokens, tool, toolFailures, mcp, rateLimited } = createSeries(registry);
  gauges(registry, sources);
  return {
    turnEnded: (seconds, reason) => turn.observe({ reason }, seconds),
    modelCall: (name, seconds, outcome, usage) => {
      model.observe({ model: name, outcome }, seconds);
      if (usage) {
        tokens.inc({ model: name, kind: 'input' }, usage.inputTokens);
        tokens.inc({ model: name, kind: 'output' }, usage.outputTokens);
      }
    },
    toolCall: (name, seconds, failed) => {
      tool.observe({ tool: name }, seconds);
      if (failed) toolFailures.inc({ tool: name });
      else toolFailures.inc({ tool: name }, 0);
    },
    mcpCall: (server, outcome) => mcp.inc({ server, outcome }),
    firstEdit: (platform, seconds) => firstEdit.observe({ platform }, seconds),
    platformRateLimited: (platform) => rateLimited.inc({ platform }),
  };
}
