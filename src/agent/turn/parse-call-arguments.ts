/** Parses a model's raw tool-call arguments into an object, repairing the usual local-model slips. */
import { isPlainObject, safeParseJson } from '../../shared/json.js';
import { err, ok, type Result } from '../../shared/result.js';

/**
 * `""` → `{}` (zero-argument tools); code fences and trailing commas are removed; a bare string or
 * scalar goes to `primaryKey` when the tool has one. Anything else is an error the model can read.
 */
export function parseCallArguments(raw: string, toolName: string, primaryKey?: string): Result<Record<string, unknown>> {
  const text = stripFences(raw.trim());
  if (text === '') return ok({});
  const parsed = safeParseJson(text);
  const value = parsed.ok ? parsed.value : repair(text);
  if (isPlainObject(value)) return ok(value);
  if (primaryKey !== undefined) {
    if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') return ok({ [primaryKey]: value });
    if (value === undefined) return ok({ [primaryKey]: text });
  }
  const reason = parsed.ok ? 'arguments must be a JSON object' : `invalid JSON (${parsed.error})`;
  return err(`Error: ${reason} for tool ${toolName}. Call it again with a JSON object that matches its parameters.`);
}

function stripFences(text: string): string {
  const fenced = /^```(?:json)?\s*([\s\S]*?)\s*```$/.exec(text);
  return fenced?.[1] ?? text;
}

function repair(text: string): unknown {
  const withoutTrailingCommas = text.replace(/,\s*([}\]])/g, '$1');
  const attempt = safeParseJson(withoutTrailingCommas);
  if (attempt.ok) return attempt.value;
  const balanced = balance(withoutTrailingCommas);
  const second = safeParseJson(balanced);
  return second.ok ? second.value : undefined;
}

/** Closes a truncated object (`{"a": "b"` → `{"a": "b"}`). */
function balance(text: string): string {
  if (!text.startsWith('{')) return text;
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const char = text[i];
    if (inString) {
      if (char === '\\') i++;
      else if (char === '"') inString = false;
    } else if (char === '"') inString = true;
    else if (char === '{') depth++;
    else if (char === '}') depth--;
  }
  return (inString ? `${text}"` : text) + '}'.repeat(Math.max(0, depth));
}
