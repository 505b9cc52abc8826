/**
 * Token usage per user, channel, model or conversation and UTC day (`usage_daily`, docs/design/usage.md), for
 * `sandpiper usage` and `GET /v1/api/admin/usage`.
 */
import { z } from 'zod';
import { USAGE_GROUPINGS, type UsageGrouping, type UsageStore } from '../../storage/usage-store.js';
import { parseAdminInput } from './admin-input.js';

export interface UsageView {
  key: string;
  label: string;
  day: string;
  turns: number;
  input_tokens: number;
  output_tokens: number;
  cached_tokens: number;
}

const DAY_MS = 86_400_000;
const MAX_DAYS = 3660;

/** `7d` (the last seven UTC days, today included), a day (`2026-12-01`) or an ISO time (its UTC day). */
const sinceSchema = z.union([
  z
    .string()
    .regex(/^\d{1,4}d$/, 'must be a number of days (7d), a day (YYYY-MM-DD) or an ISO time')
    .refine((value) => Number.parseInt(value, 10) >= 1 && Number.parseInt(value, 10) <= MAX_DAYS, `days must be 1-${MAX_DAYS}`),
  z.iso.date(),
  z.iso.datetime({ offset: true }),
]);

const usageQuerySchema = z.strictObject({
  by: z.enum(USAGE_GROUPINGS as [UsageGrouping, ...UsageGrouping[]]).default('user'),
  since: sinceSchema.default('7d'),
});

/** The first UTC day a `since` value covers. */
export function sinceDay(since: string, now: number): string {
  if (/^\d+d$/.test(since)) return new Date(now - (Number.parseInt(since, 10) - 1) * DAY_MS).toISOString().slice(0, 10);
  return since.length === 10 ? since : new Date(Date.parse(since)).toISOString().slice(0, 10);
}

/** Lines per key and day since `since` (default the last 7 days), newest day first; bad input is BAD_REQUEST. */
export async function listUsage(store: Pick<UsageStore, 'report'>, input: { by?: unknown; since?: unknown }, now: number = Date.now()): Promise<UsageView[]> {
  const query = parseAdminInput(usageQuerySchema, { by: input.by ?? undefined, since: input.since ?? undefined });
  const lines = await store.report(query.by, sinceDay(query.since, now));
  return lines.map((line) => ({
    key: line.key,
    label: line.label,
    day: line.day,
    turns: line.turns,
    input_tokens: line.inputTokens,
    output_tokens: line.outputTokens,
    cached_tokens: line.cachedTokens,
  }));
}
