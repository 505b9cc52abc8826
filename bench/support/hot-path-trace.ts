/**
 * `--trace`: inside a benchmarked bot, where a message's time goes on its two measured paths, point by point:
 * - to the model request: offsets from the message's arrival (`inbound`) of the gateway's marks
 *   (src/shared/hot-path-marks.ts; the bare bot marks its own `inbound`, `thread-opened` and `model-call`) and of
 *   undici's, for the model request (`undici:request:create`, headers and body on the socket);
 * - to the final edit: offsets from the end of the model stream (`stream-end`, both bots) of the answer's last
 *   platform request (created, headers and body on the socket).
 * Medians per conversation kind (a message that opened a thread, or one in an existing thread).
 */
import { subscribe } from 'node:diagnostics_channel';
import { median } from './percentiles.js';

export type TraceKind = 'new thread' | 'existing thread';
export type TracePath = 'model request' | 'final edit';
/** Median offset (ms) of each point from the path's start, per kind and path. */
export type TraceSummary = Partial<Record<`${TraceKind}|${TracePath}`, Record<string, number>>>;

const MODEL_PATH = /chat\/completions/;
/** The answer's post or edit in the thread (Discord's REST path; Slack's chat.postMessage / chat.update). */
const ANSWER_PATH = /\/channels\/\d+\/messages|chat\.(postMessage|update)/;
const PATH_START: Record<TracePath, string> = { 'model request': 'inbound', 'final edit': 'stream-end' };
let cycles: Array<Array<[string, number]>> = [];

function mark(point: string): void {
  if (point === 'inbound') cycles.push([]);
  cycles.at(-1)?.push([point, performance.now()]);
}

function requestPath(message: unknown): string {
  return (message as { request?: { path?: string } }).request?.path ?? '';
}

/** Subscribes when `SANDPIPER_BENCH_TRACE=1` (set by the orchestrator's `--trace`); returns whether it did. */
export function startTrace(): boolean {
  if (process.env.SANDPIPER_BENCH_TRACE !== '1') return false;
  subscribe('sandpiper:hot-path', (point) => mark(String(point)));
  const undici = (name: string, point: string): void =>
    subscribe(name, (message) => {
      const path = requestPath(message);
      if (MODEL_PATH.test(path)) mark(`undici: ${point}`);
      // Only the answer's requests after the stream ended: the final edit (earlier ones are the streamed edits).
      else if (ANSWER_PATH.test(path) && cycles.at(-1)?.some(([seen]) => seen === 'stream-end')) mark(`edit: ${point}`);
    });
  undici('undici:request:create', 'request created');
  undici('undici:client:sendHeaders', 'headers sent');
  undici('undici:request:bodySent', 'body sent');
  return true;
}

/** Forgets what was traced so far (the warm-up). */
export function resetTrace(): void {
  cycles = [];
}

/** Offsets of each point's first occurrence at or after the path's start. */
function offsets(cycle: Array<[string, number]>, path: TracePath): Array<[string, number]> {
  const startAt = cycle.findIndex(([point]) => point === PATH_START[path]);
  if (startAt < 0) return [];
  const start = cycle[startAt]?.[1] ?? 0;
  const seen = new Set<string>();
  const out: Array<[string, number]> = [];
  for (const [point, at] of cycle.slice(startAt)) {
    const finalEdit = point === 'stream-end' || point === 'turn-end' || point.startsWith('edit:');
    const inPath = path === 'final edit' ? finalEdit : !finalEdit;
    if (!inPath || seen.has(point)) continue;
    seen.add(point);
    out.push([point, at - start]);
  }
  return out;
}

export function traceSummary(): TraceSummary {
  const summary: TraceSummary = {};
  const answered = cycles.filter((marks) => marks.some(([point]) => point === 'model-call'));
  for (const kind of ['new thread', 'existing thread'] as const) {
    const ofKind = answered.filter((marks) => marks.some(([point]) => point === 'thread-opened') === (kind === 'new thread'));
    for (const path of ['model request', 'final edit'] as const) {
      const values = new Map<string, number[]>();
      for (const cycle of ofKind) for (const [point, offset] of offsets(cycle, path)) values.set(point, [...(values.get(point) ?? []), offset]);
      if (values.size > 0) summary[`${kind}|${path}`] = Object.fromEntries([...values].map(([point, list]) => [point, median(list)]));
    }
  }
  return summary;
}
