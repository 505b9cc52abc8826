/** Validation shared by the admin CLI and the admin HTTP endpoints: zod issues become one BAD_REQUEST line. */
import type { z } from 'zod';
import { GatewayError } from '../../shared/errors.js';

/** Parses `input` with `schema`, or throws GatewayError BAD_REQUEST naming each bad field (never echoing values). */
export function parseAdminInput<T>(schema: z.ZodType<T>, input: unknown): T {
  const parsed = schema.safeParse(input);
  if (parsed.success) return parsed.data;
  const problems = parsed.error.issues.slice(0, 3).map((issue) => {
    const field = issue.path.map(String).join('.');
    return field === '' ? issue.message : `${field}: ${issue.message}`;
  });
  throw new GatewayError('BAD_REQUEST', problems.join('; '));
}

/** Age in whole seconds of a stored UTC timestamp (`YYYY-MM-DDTHH:MM:SS`), at least 0. */
export function ageSeconds(stored: string, now: number): number {
  const then = Date.parse(`${stored}Z`);
  return Number.isFinite(then) ? Math.max(0, Math.floor((now - then) / 1000)) : 0;
}

/** A short human age: `42s`, `5m`, `3h 2m`, `2d 4h`. */
export function formatAge(seconds: number): string {
  if (seconds < 60) return `${seconds}s`;
  if (seconds < 3600) return `${Math.floor(seconds / 60)}m`;
  if (seconds < 86_400) return `${Math.floor(seconds / 3600)}h ${Math.floor((seconds % 3600) / 60)}m`;
  return `${Math.floor(seconds / 86_400)}d ${Math.floor((seconds % 86_400) / 3600)}h`;
}
