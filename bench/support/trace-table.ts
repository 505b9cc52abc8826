/**
 * The `--trace` tables: per conversation kind and path (to the model request, from the fake sending the message; to
 * the final edit, from the fake LLM writing the last token), each point's offset, bare bot next to Sandpiper.
 */
import type { Bot } from './bench-run.js';
import { median } from './bench-run.js';
import type { TraceKind, TracePath } from './trace-assembly.js';
import type { RoundResult } from './latency-rounds.js';

/** Points are tens of microseconds apart: two decimals. */
const fmt = (ms: number): string => (Number.isFinite(ms) ? ms.toFixed(2) : '-');
const FROM: Record<TracePath, string> = {
  'model request': 'the fake sent the message',
  'final edit': 'the fake LLM wrote the last token',
};

export function printTrace(size: string, results: Record<Bot, RoundResult[]>): void {
  for (const kind of ['new thread', 'existing thread'] as const satisfies readonly TraceKind[]) {
    for (const path of ['model request', 'final edit'] as const satisfies readonly TracePath[]) {
      const key = `${kind}|${path}` as const;
      const at = (bot: Bot, point: string): number =>
        median(
          results[bot]
            .map((round) => round.trace?.summary[key]?.[point])
            .filter((value): value is number => value !== undefined),
        );
      const points = [
        ...new Set(results.sandpiper.flatMap((round) => Object.keys(round.trace?.summary[key] ?? {}))),
      ].sort((a, b) => at('sandpiper', a) - at('sandpiper', b));
      if (points.length === 0) continue;
      console.log(`\n${size} ${kind}, ${path}: ms after ${FROM[path]} (medians over rounds of per-round medians)`);
      console.log(`${'point'.padEnd(24)} | bare   | sandpiper | added`);
      for (const point of points) {
        const bare = at('bare', point);
        const ours = at('sandpiper', point);
        const added = Number.isFinite(bare) ? `${ours - bare >= 0 ? '+' : ''}${fmt(ours - bare)}` : '';
        console.log(`${point.padEnd(24)} | ${fmt(bare).padEnd(6)} | ${fmt(ours).padEnd(9)} | ${added}`);
      }
    }
  }
}
