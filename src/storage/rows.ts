/** Shared column converters for the knex stores: booleans as 0/1, JSON text, numbers from bigint strings. */
import { safeParseJson, isPlainObject } from '../shared/json.js';

/** A database row as the driver returns it (snake_case keys). */
export type DbRow = Record<string, unknown>;

export function toDbBool(value: boolean): number {
  return value ? 1 : 0;
}

export function fromDbBool(value: unknown): boolean {
  return value === 1 || value === true || value === '1';
}

/** Numbers may come back as strings (PostgreSQL bigint, COUNT). */
export function toNumber(value: unknown): number {
  if (typeof value === 'number') return value;
  if (typeof value === 'string' || typeof value === 'bigint') return Number(value);
  return 0;
}

export function toNullableNumber(value: unknown): number | null {
  return value === null || value === undefined ? null : toNumber(value);
}

export function text(value: unknown): string {
  return typeof value === 'string' ? value : value === null || value === undefined ? '' : String(value);
}

export function nullableText(value: unknown): string | null {
  return value === null || value === undefined ? null : String(value);
}

/** Parses JSON text; anything unparsable (or not text) reads as `fallback`. */
export function parseJsonOr<T>(value: unknown, fallback: T, accept: (parsed: unknown) => parsed is T): T {
  if (typeof value !== 'string') return fallback;
  const parsed = safeParseJson(value);
  return parsed.ok && accept(parsed.value) ? parsed.value : fallback;
}

export function isStringArray(value: unknown): value is string[] {
  return Array.isArray(value) && value.every((item) => typeof item === 'string');
}

export function isStringRecord(value: unknown): value is Record<string, string> {
  return isPlainObject(value) && Object.values(value).every((item) => typeof item === 'string');
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return isPlainObject(value);
}

export function parseStringArray(value: unknown): string[] {
  return parseJsonOr(value, [], isStringArray);
}

export function parseStringRecord(value: unknown): Record<string, string> {
  return parseJsonOr(value, {}, isStringRecord);
}

/** Escapes `\`, `%` and `_` for a LIKE pattern used with `ESCAPE '\'`. */
export function escapeLike(term: string): string {
  return term.replace(/\\/g, '\\\\').replace(/%/g, '\\%').replace(/_/g, '\\_');
}

/** Drops undefined values so a patch only touches the columns it names. */
export function definedOnly(row: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(row).filter(([, value]) => value !== undefined));
}
