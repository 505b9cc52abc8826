/**
 * Cost of the tracing and metrics seams when `telemetry.otlp_endpoint` is unset (no SDK registered, no metrics sink):
 * a span wrapper against a direct call, and a 50-part model stream through `instrumentProvider` against the raw
 * provider. Interleaved rounds, medians, printed per operation.
 */
import { instrumentProvider } from '../src/agent/agent-telemetry.js';
import type { ModelProvider, ModelStreamPart } from '../src/agent/providers/model-provider.js';
import { withSpan } from '../src/shared/telemetry.js';

const ROUNDS = 9;
const SPAN_OPS = 50_000;
const STREAM_OPS = 5_000;
const PARTS: ModelStreamPart[] = [
  ...Array.from({ length: 49 }, (_, i) => ({ type: 'text-delta' as const, text: `t${i}` })),
  { type: 'finish', finishReason: 'stop', usage: { inputTokens: 10, outputTokens: 49 } },
];

const raw: ModelProvider = {
  id: 'openai',
  capabilities: () => ({ contextWindow: 128_000, maxOutputTokens: 8192, supportsVision: false }),
  async *stream() {
    for (const part of PARTS) yield part;
  },
};
const instrumented = instrumentProvider(raw, 'main');
const request = { model: 'gpt-fake', messages: [], tools: [] };

async function time(ops: number, op: () => Promise<unknown>): Promise<number> {
  const started = process.hrtime.bigint();
  for (let i = 0; i < ops; i++) await op();
  return Number(process.hrtime.bigint() - started) / ops;
}

async function drain(provider: ModelProvider): Promise<number> {
  let count = 0;
  for await (const part of provider.stream(request, { signal: new AbortController().signal })) if (part.type) count++;
  return count;
}

const median = (values: number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;

const results = {
  direct: [] as number[],
  span: [] as number[],
  rawStream: [] as number[],
  tracedStream: [] as number[],
};
for (let round = 0; round < ROUNDS; round++) {
  results.direct.push(await time(SPAN_OPS, async () => 1));
  results.span.push(await time(SPAN_OPS, () => withSpan('bench', { n: 1 }, async () => 1)));
  results.rawStream.push(await time(STREAM_OPS, () => drain(raw)));
  results.tracedStream.push(await time(STREAM_OPS, () => drain(instrumented)));
}
const ns = (value: number): string => `${value.toFixed(0)} ns`;
console.log(
  `span wrapper, no SDK: direct call ${ns(median(results.direct))}, withSpan ${ns(median(results.span))}, overhead ${ns(median(results.span) - median(results.direct))} per span`,
);
console.log(
  `50-part model stream: raw ${ns(median(results.rawStream))}, instrumented ${ns(median(results.tracedStream))}, overhead ${ns(median(results.tracedStream) - median(results.rawStream))} per model call`,
);
