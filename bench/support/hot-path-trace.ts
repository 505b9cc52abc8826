/**
 * `--trace`: inside a benchmarked bot, where a message's time goes on its two measured paths, point by point:
 * - to the model request: offsets from the message's arrival (`inbound`) of the gateway's marks
 *   (src/shared/hot-path-marks.ts; the bare bot marks its own `inbound`, `thread-opened` and `model-call`) and of
 *   undici's, for the model request (`undici:request:create`, headers and body on the socket);
 * - to the final edit: offsets from the model's finish-reason chunk (`text-end`, both bots) of the stream's end
 *   (`stream-end`: the SDK's iteration is over), the renderer's `segment-end` and `turn-end` and of the answer's last
 *   platform request (created, headers and body on the socket).
 * Medians per conversation kind (a message that opened a thread, or one in an existing thread).
 */
import { subscribe } from 'node:diagnostics_channel';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { median } from './percentiles.js';

export type TraceKind = 'new thread' | 'existing thread';
export type TracePath = 'model request' | 'final edit';
/** Median offset (ms) of each point from the path's start, per kind and path. */
export type TraceSummary = Partial<Record<`${TraceKind}|${TracePath}`, Record<string, number>>>;

const MODEL_PATH = /chat\/completions/;
/** The answer's post or edit in the thread (Discord's REST path; Slack's chat.postMessage / chat.update). */
const ANSWER_PATH = /\/channels\/\d+\/messages|chat\.(postMessage|update)/;
const PATH_START: Record<TracePath, string> = { 'model request': 'inbound', 'final edit': 'text-end' };
/** Each message's points: name and `process.hrtime` in µs (the clock of V8's CPU profiles). */
let cycles: Array<Array<[string, number]>> = [];

function mark(point: string): void {
  if (point === 'inbound') cycles.push([]);
  cycles.at(-1)?.push([point, Number(process.hrtime.bigint()) / 1000]);
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
      // Only the answer's requests after the text ended: the final edit (earlier ones are the streamed edits).
      else if (ANSWER_PATH.test(path) && cycles.at(-1)?.some(([seen]) => seen === 'text-end')) mark(`edit: ${point}`);
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

/** Offsets (ms) of each point's first occurrence at or after the path's start. */
function offsets(cycle: Array<[string, number]>, path: TracePath): Array<[string, number]> {
  const startAt = cycle.findIndex(([point]) => point === PATH_START[path]);
  if (startAt < 0) return [];
  const start = cycle[startAt]?.[1] ?? 0;
  const seen = new Set<string>();
  const out: Array<[string, number]> = [];
  for (const [point, at] of cycle.slice(startAt)) {
    const finalEdit = point === 'text-end' || point === 'stream-end' || point === 'segment-end' || point === 'turn-end' || point.startsWith('edit:');
    const inPath = path === 'final edit' ? finalEdit : !finalEdit;
    if (!inPath || seen.has(point)) continue;
    seen.add(point);
    out.push([point, (at - start) / 1000]);
  }
  return out;
}

/** Messages that reached the model, by kind (a message that opened a thread, or one in an existing thread). */
function answeredOfKind(kind: TraceKind): Array<Array<[string, number]>> {
  return cycles.filter((marks) => marks.some(([point]) => point === 'model-call') && marks.some(([point]) => point === 'thread-opened') === (kind === 'new thread'));
}

/**
 * With `--profile` too: each traced message's points per path, as `process.hrtime` µs (the clock of V8's CPU
 * profiles), written to `SANDPIPER_BENCH_WINDOWS`, so `profile-summary.ts --window=<kind>|<path>` keeps only the
 * samples taken between two of them (by default from the path's start to its last request point).
 */
export function writeTraceWindows(): void {
  const file = process.env.SANDPIPER_BENCH_WINDOWS;
  if (!file) return;
  const windows: Record<string, Array<Record<string, number>>> = {};
  for (const kind of ['new thread', 'existing thread'] as const) {
    for (const path of ['model request', 'final edit'] as const) {
      windows[`${kind}|${path}`] = answeredOfKind(kind).flatMap((cycle) => {
        const start = cycle.find(([point]) => point === PATH_START[path])?.[1];
        if (start === undefined) return [];
        return [Object.fromEntries(offsets(cycle, path).map(([point, offsetMs]) => [point, Math.round(start + offsetMs * 1000)]))];
      });
    }
  }
  // The profile's folder is made by node only at exit.
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file.replace('%p', String(process.pid)), JSON.stringify(windows));
}

export function traceSummary(): TraceSummary {
  const summary: TraceSummary = {};
  for (const kind of ['new thread', 'existing thread'] as const) {
    const ofKind = answeredOfKind(kind);
    for (const path of ['model request', 'final edit'] as const) {
      const values = new Map<string, number[]>();
      for (const cycle of ofKind) for (const [point, offset] of offsets(cycle, path)) values.set(point, [...(values.get(point) ?? []), offset]);
      if (values.size > 0) summary[`${kind}|${path}`] = Object.fromEntries([...values].map(([point, list]) => [point, median(list)]));
    }
  }
  return summary;
}
