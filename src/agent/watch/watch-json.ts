/** The `data` variable of a condition: the poll output parsed as JSON, or None when it is not JSON. */
import type { PyValue } from './stop-on-values.js';

export function safeJsonParse(output: string): PyValue {
  const text = output.trim();
  if (text === '') return null;
  try {
    return JSON.parse(text) as PyValue;
  } catch {
    // Not JSON (or nested beyond what the parser takes): `data` is None, exactly like Python's json.loads failing.
    return null;
  }
}
