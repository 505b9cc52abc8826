/** Parsing untrusted JSON into a Result instead of throwing. */
import { err, ok, type Result } from './result.js';

export function safeParseJson(text: string): Result<unknown> {
  try {
    return ok(JSON.parse(text) as unknown);
  } catch (error) {
    return err(error instanceof Error ? error.message : 'invalid JSON');
  }
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
