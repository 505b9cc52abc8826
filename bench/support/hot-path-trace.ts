/**
 * `--trace`, inside a benchmarked bot: its HTTP requests as undici's diagnostics channels publish them, so nothing in
 * the bot's own code (Sandpiper or bare) is probed: the model request (created, headers sent, body sent, response
 * headers, response end), a thread's creation (created, answered) and the answer's posts and edits (created, headers
 * sent, body sent). Each point is `process.hrtime` in µs, CLOCK_MONOTONIC: the clock the orchestrator converts the
 * fakes' timestamps to (trace-assembly.ts assigns the points to messages) and the clock of V8's CPU profiles.
 */
import { subscribe } from 'node:diagnostics_channel';

export type TracePoint = [name: string, atUs: number];

const MODEL_PATH = /chat\/completions/;
/** Discord's thread creation from a message. */
const THREAD_PATH = /\/channels\/\d+\/messages\/\d+\/threads$/;
/** The answer's post or edit in the thread (Discord's REST path; Slack's chat.postMessage / chat.update). */
const ANSWER_PATH = /\/channels\/\d+\/messages|chat\.(postMessage|update)/;
let points: TracePoint[] = [];

export const hrUs = (): number => Number(process.hrtime.bigint()) / 1000;

function requestKind(message: unknown): 'undici' | 'thread' | 'edit' | undefined {
  const path = (message as { request?: { path?: string } }).request?.path ?? '';
  if (MODEL_PATH.test(path)) return 'undici';
  if (THREAD_PATH.test(path)) return 'thread';
  return ANSWER_PATH.test(path) ? 'edit' : undefined;
}

/** Subscribes when `SANDPIPER_BENCH_TRACE=1` (set by the orchestrator's `--trace`); returns whether it did. */
export function startTrace(): boolean {
  if (process.env.SANDPIPER_BENCH_TRACE !== '1') return false;
  const on = (channel: string, point: string, kinds: ReadonlyArray<'undici' | 'thread' | 'edit'>): void =>
    subscribe(channel, (message) => {
      const kind = requestKind(message);
      if (kind !== undefined && kinds.includes(kind)) points.push([`${kind}: ${point}`, hrUs()]);
    });
  on('undici:request:create', 'request created', ['undici', 'thread', 'edit']);
  on('undici:client:sendHeaders', 'headers sent', ['undici', 'edit']);
  on('undici:request:bodySent', 'body sent', ['undici', 'edit']);
  on('undici:request:headers', 'response headers', ['undici', 'thread']);
  on('undici:request:trailers', 'response end', ['undici']);
  return true;
}

/** Forgets what was traced so far (the warm-up). */
export function resetTrace(): void {
  points = [];
}

/** The points traced since the last reset, in the order they happened. */
export function tracePoints(): TracePoint[] {
  return points;
}
