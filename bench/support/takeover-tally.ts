/** The takeover fuzzer's counts (bench/support/takeover-rounds.ts) and their printout. */
import { pct } from './percentiles.js';

export interface TakeoverTally {
  /** Rounds counted: one kill each. */
  rounds: number;
  /** Questions counted (three a round, fewer when a tool question got no approval card). */
  questions: number;
  /** Questions whose workstream lease the killed instance held at the kill. */
  heldByKilled: number;
  lost: number;
  duplicated: number;
  duplicateRows: number;
  partialMissing: number;
  toolRanTwice: number;
  orphans: number;
  /** Tool questions that got no approval card (no kill mid-tool that round). */
  setupFailures: number;
  failoverMs: number[];
  roundMs: number[];
}

export const blankTakeover = (): TakeoverTally => ({
  rounds: 0,
  questions: 0,
  heldByKilled: 0,
  lost: 0,
  duplicated: 0,
  duplicateRows: 0,
  partialMissing: 0,
  toolRanTwice: 0,
  orphans: 0,
  setupFailures: 0,
  failoverMs: [],
  roundMs: [],
});

export function printTakeover(tally: TakeoverTally, elapsedMs: number): void {
  const ms = (values: number[], p: number): string => (values.length === 0 ? '-' : `${pct(values, p)} ms`);
  console.log(`takeover: ${tally.rounds} kills of the shard holder in ${(elapsedMs / 60_000).toFixed(1)} min`);
  console.log(`questions in flight at the kills: ${tally.questions} (${tally.heldByKilled} on the killed instance)`);
  console.log(
    `failover p50 ${ms(tally.failoverMs, 50)}, p99 ${ms(tally.failoverMs, 99)}; round p50 ${ms(tally.roundMs, 50)}`,
  );
  console.log(
    'lost | answered twice | duplicate history rows | resume without interruption | tool ran twice | tool outlived',
  );
  console.log(
    [tally.lost, tally.duplicated, tally.duplicateRows, tally.partialMissing, tally.toolRanTwice, tally.orphans].join(
      ' | ',
    ),
  );
  if (tally.setupFailures > 0) console.log(`tool questions without an approval card: ${tally.setupFailures}`);
}
