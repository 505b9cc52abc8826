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

/** Registers the series on `registry` and returns the sink that feeds them. */
export function createTelemetryMetrics(registry: Registry, sources: TelemetryGaugeSources = {}): TelemetrySink {
  const registers = [registry];
  const firstEdit = new Histogram({ name: 'sandpiper_message_first_edit_seconds', help: 'Inbound message to the first post or edit of the answer', labelNames: ['platform'] as const, buckets: LATENCY_BUCKETS, registers });
  const turn = new Histogram({ name: 'sandpiper_turn_duration_seconds', help: 'Turn latency by end reason', labelNames: ['reason'] as const, buckets: LATENCY_BUCKETS, registers });
  const model = new Histogram({ name: 'sandpiper_model_call_duration_seconds', help: 'Model call latency by model and outcome', labelNames: ['model', 'outcome'] as const, buckets: LATENCY_BUCKETS, registers });
  const tokens = new Counter({ name: 'sandpiper_model_tokens_total', help: 'Tokens by model and kind (input, output)', labelNames: ['model', 'kind'] as const, registers });
  const tool = new Histogram({ name: 'sandpiper_tool_duration_seconds', help: 'Tool call duration by tool', labelNames: ['tool'] as const, buckets: LATENCY_BUCKETS, registers });
  const toolFailures = new Counter({ name: 'sandpiper_tool_failures_total', help: 'Tool calls that failed, by tool', labelNames: ['tool'] as const, registers });
  const mcp = new Counter({ name: 'sandpiper_mcp_calls_total', help: 'Requests to MCP servers by server and outcome', labelNames: ['server', 'outcome'] as const, registers });
  const rateLimited = new Counter({ name: 'sandpiper_platform_rate_limited_total', help: 'HTTP 429 answers from a chat platform', labelNames: ['platform'] as const, registers });
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
