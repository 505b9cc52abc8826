/**
 * `--trace`: inside a benchmarked bot, the time from a message's arrival (`inbound`) to each point of its way to the
 * model request: the gateway's marks (src/shared/hot-path-marks.ts; the bare bot marks its own `inbound`,
 * `thread-opened` and `model-call`) and undici's, for the model request (`undici:request:create`, headers and body on
 * the socket). Medians per conversation kind (a message that opened a thread, or one in an existing thread).
 */
import { subscribe } from 'node:diagnostics_channel';
import { median } from './percentiles.js';

export type TraceKind = 'new thread' | 'existing thread';
/** Median offset from `inbound` (ms) of each point, per kind. */
export type TraceSummary = Partial<Record<TraceKind, Record<string, number>>>;

const MODEL_PATH = /chat\/completions/;
let cycles: Array<Array<[string, number]>> = [];

function mark(point: string): void {
  if (point === 'inbound') cycles.push([]);
  cycles.at(-1)?.push([point, performance.now()]);
}

/** Subscribes when `SANDPIPER_BENCH_TRACE=1` (set by the orchestrator's `--trace`); returns whether it did. */
export function startTrace(): boolean {
  if (process.env.SANDPIPER_BENCH_TRACE !== '1') return false;
  subscribe('sandpiper:hot-path', (point) => mark(String(point)));
  const undici = (name: string, point: string): void =>
    subscribe(name, (message) => {
      if (MODEL_PATH.test((message as { request?: { path?: string } }).request?.path ?? '')) mark(point);
    });
  undici('undici:request:create', 'undici: request created');
  undici('undici:client:sendHeaders', 'undici: headers sent');
  undici('undici:request:bodySent', 'undici: body sent');
  return true;
}

/** Forgets what was traced so far (the warm-up). */
export function resetTrace(): void {
  cycles = [];
}

export function traceSummary(): TraceSummary {
  const summary: TraceSummary = {};
  for (const kind of ['new thread', 'existing thread'] as const) {
    const offsets = new Map<string, number[]>();
    const answered = cycles.filter((marks) => marks.some(([point]) => point === 'model-call'));
    for (const cycle of answered.filter((marks) => marks.some(([point]) => point === 'thread-opened') === (kind === 'new thread'))) {
      const start = cycle[0]?.[1] ?? 0;
      const seen = new Set<string>();
      for (const [point, at] of cycle) {
        if (seen.has(point)) continue;
        seen.add(point);
        offsets.set(point, [...(offsets.get(point) ?? []), at - start]);
      }
    }
    if (offsets.size > 0) summary[kind] = Object.fromEntries([...offsets].map(([point, values]) => [point, median(values)]));
  }
  return summary;
}
