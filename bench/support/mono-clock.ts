/**
 * One clock across the benchmark's processes: `process.hrtime` is CLOCK_MONOTONIC on Linux, shared by every process
 * of the machine. `performance.now()` readings of this process convert to it with a fixed offset.
 */
const OFFSET_MS = Number(process.hrtime.bigint()) / 1e6 - performance.now();

/** A `performance.now()` reading of this process, in CLOCK_MONOTONIC ms. */
export const monoMs = (performanceMs: number): number => performanceMs + OFFSET_MS;

/** A map of `performance.now()` readings as entries of CLOCK_MONOTONIC ms (for IPC). */
export const monoEntries = (map: ReadonlyMap<string, number>): Array<[string, number]> =>
  [...map].map(([key, at]) => [key, monoMs(at)]);
