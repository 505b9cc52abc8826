/** Watch durations: `poll_every` parsing (`30s`, `5m`, `2h30m`, `90`) and the short display of intervals. */
import { err, ok, type Result } from '../../shared/result.js';

export const MIN_INTERVAL_SECONDS = 10;
export const MAX_INTERVAL_SECONDS = 86_400;
export const DEFAULT_INTERVAL = '5m';

/** Seconds of a duration string; fractions are allowed for bare numbers. */
export function parseDuration(input: string): Result<number> {
  const text = input.trim();
  if (text === '') return err('empty duration string');
  if (/^[+-]?(\d+(\.\d*)?|\.\d+)$/.test(text)) {
    const seconds = Number(text);
    return seconds > 0 ? ok(seconds) : err(`duration must be positive, got ${text}`);
  }
  const match = /^(?:(\d+)\s*h)?\s*(?:(\d+)\s*m)?\s*(?:(\d+)\s*s)?$/i.exec(text);
  if (match === null || (match[1] === undefined && match[2] === undefined && match[3] === undefined)) {
    return err(`invalid duration format: '${text}' (use e.g. 30s, 5m, 1h or 2h30m)`);
  }
  const seconds = Number(match[1] ?? 0) * 3600 + Number(match[2] ?? 0) * 60 + Number(match[3] ?? 0);
  return seconds > 0 ? ok(seconds) : err(`duration must be positive, got ${text}`);
}

/** `30s`, `5m`, `1h30m`, `2h`. */
export function formatInterval(seconds: number): string {
  if (seconds < 60) return `${Math.round(seconds)}s`;
  if (seconds < 3600) return `${Math.round(seconds / 60)}m`;
  const hours = Math.floor(seconds / 3600);
  const minutes = Math.round((seconds % 3600) / 60);
  return minutes > 0 ? `${hours}h${minutes}m` : `${hours}h`;
}
