/** Keeps tool output within a character limit by cutting out its middle, with a visible marker. */

/**
 * Returns `output` unchanged when it fits in `limit` characters (or when `limit` is not positive);
 * otherwise the first and last halves with a marker saying how much was cut.
 */
export function truncateOutput(output: string, limit: number): string {
  if (!Number.isFinite(limit) || limit <= 0 || output.length <= limit) return output;
  const half = Math.floor(limit / 2);
  const omitted = output.length - 2 * half;
  const marker = `\n\n... [${omitted} chars truncated — output exceeded ${limit} char limit] ...\n\n`;
  return output.slice(0, half) + marker + output.slice(output.length - half);
}
