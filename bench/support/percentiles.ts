/** Percentiles of a sample, for the orchestrators and the bot processes alike (no other imports, so a bare bot loads nothing more). */
export const pct = (values: readonly number[], p: number): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
};
export const median = (values: readonly number[]): number => pct(values, 50);
