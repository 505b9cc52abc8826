/**
 * `--trace`, in the orchestrator: each message's path, point by point, from the fakes' timestamps (message sent, model
 * request arrived, last token written, final edit arrived) and the bot's undici points (hot-path-trace.ts), all on
 * CLOCK_MONOTONIC. Sequential sizes only (`1xK`): a bot point belongs to the message sent last before it.
 * - model request: offsets from the fake sending the message;
 * - final edit: offsets from the fake LLM writing the last token.
 */
import { median } from './percentiles.js';
import type { TracePoint } from './hot-path-trace.js';

export type TraceKind = 'new thread' | 'existing thread';
export type TracePath = 'model request' | 'final edit';
/** Median offset (ms) of each point from the path's start, per kind and path. */
export type TraceSummary = Partial<Record<`${TraceKind}|${TracePath}`, Record<string, number>>>;
/** Per kind and path, each message's points (hrtime µs), for profile-summary.ts `--window`. */
export type TraceWindows = Record<string, Array<Record<string, number>>>;

/** One message as the fakes saw it, in the orchestrator's `performance.now()` ms. */
export interface MessageTimes {
  kind: TraceKind;
  sent: number;
  request: number | undefined;
  lastToken: number | undefined;
  final: number | undefined;
}

/** `performance.now()` ms of this process → `process.hrtime` µs (both monotonic; the offset is fixed). */
const HR_OFFSET_US = Number(process.hrtime.bigint()) / 1000 - performance.now() * 1000;
const toHrUs = (ms: number | undefined): number | undefined =>
  ms === undefined ? undefined : ms * 1000 + HR_OFFSET_US;

/** The first occurrence of each bot point in [from, to), plus the fakes' own points. */
function pathPoints(
  points: readonly TracePoint[],
  from: number,
  to: number,
  accept: (name: string) => boolean,
  own: Record<string, number | undefined>,
): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [name, at] of Object.entries(own)) if (at !== undefined) out[name] = at;
  for (const [name, at] of points) if (at >= from && at < to && accept(name) && out[name] === undefined) out[name] = at;
  return out;
}

/** Each message's points per path (hrtime µs). */
export function assembleTrace(points: readonly TracePoint[], messages: readonly MessageTimes[]): TraceWindows {
  const windows: TraceWindows = {};
  const sorted = [...messages].sort((a, b) => a.sent - b.sent);
  sorted.forEach((message, index) => {
    const sent = toHrUs(message.sent) as number;
    const next = toHrUs(sorted[index + 1]?.sent) ?? Infinity;
    const lastToken = toHrUs(message.lastToken);
    const toModel = pathPoints(
      points,
      sent,
      lastToken ?? next,
      (name) => !name.startsWith('edit:') && name !== 'undici: response end',
      {
        'fake: message sent': sent,
        'llm: request arrived': toHrUs(message.request),
      },
    );
    (windows[`${message.kind}|model request`] ??= []).push(toModel);
    if (lastToken === undefined) return;
    const toFinal = pathPoints(
      points,
      lastToken,
      next,
      (name) => name.startsWith('edit:') || name === 'undici: response end',
      {
        'llm: last token written': lastToken,
        'fake: final edit arrived': toHrUs(message.final),
      },
    );
    (windows[`${message.kind}|final edit`] ??= []).push(toFinal);
  });
  return windows;
}

const START: Record<TracePath, string> = {
  'model request': 'fake: message sent',
  'final edit': 'llm: last token written',
};

/** Median offset (ms) of each point from its path's start. */
export function summarizeTrace(windows: TraceWindows): TraceSummary {
  const summary: TraceSummary = {};
  for (const [key, list] of Object.entries(windows) as Array<
    [`${TraceKind}|${TracePath}`, Array<Record<string, number>>]
  >) {
    const start = START[key.split('|')[1] as TracePath];
    const values = new Map<string, number[]>();
    for (const message of list) {
      const origin = message[start];
      if (origin === undefined) continue;
      for (const [name, at] of Object.entries(message))
        values.set(name, [...(values.get(name) ?? []), (at - origin) / 1000]);
    }
    summary[key] = Object.fromEntries([...values].map(([name, offsets]) => [name, median(offsets)]));
  }
  return summary;
}
