/** Turns a model's raw tool-call arguments text into an arguments object, repairing what can be repaired. */
import { jsonrepair } from 'jsonrepair';
import { isPlainObject, safeParseJson } from '../../shared/json.js';
import { err, ok, type Result } from '../../shared/result.js';
import type { ToolPreparation } from './tool.js';

/** Keys tried, in order, when salvaging one string value out of broken JSON. */
const RESCUE_KEYS = [
  'command',
  'code',
  'content',
  'name',
  'page',
  'path',
  'pattern',
  'prompt',
  'query',
  'uri',
  'url',
] as const;

/**
 * Parses the arguments of one tool call. Empty text means "no arguments". Broken JSON objects are repaired
 * (jsonrepair, then a one-key rescue); a bare string goes to the tool's primary key. The error text is
 * written for the model, which reads it as the tool result.
 */
export function parseToolArguments(raw: string, primaryKey?: string): Result<Record<string, unknown>> {
  const trimmed = raw.trim();
  if (trimmed === '') return ok({});
  const parsed = safeParseJson(trimmed);
  if (parsed.ok) return fromParsedValue(parsed.value, raw, primaryKey);
  if (trimmed.startsWith('{')) {
    const repaired = repairObject(trimmed);
    if (repaired !== undefined) return ok(repaired);
  }
  const rescued = rescueOneKey(raw);
  if (rescued !== undefined) return ok(rescued);
  if (!trimmed.startsWith('{') && primaryKey !== undefined) return ok({ [primaryKey]: raw });
  return err(parseErrorText(parsed.error, raw));
}

function fromParsedValue(value: unknown, raw: string, primaryKey: string | undefined): Result<Record<string, unknown>> {
  if (isPlainObject(value)) return ok(value);
  if (typeof value === 'string' && primaryKey !== undefined) {
    // Some models double-encode the arguments object as a JSON string.
    const inner = safeParseJson(value);
    if (inner.ok && isPlainObject(inner.value)) return ok(inner.value);
    return ok({ [primaryKey]: value });
  }
  const kind = value === null ? 'null' : Array.isArray(value) ? 'an array' : `a ${typeof value}`;
  return err(`JSON parse error: arguments must be a JSON object, got ${kind}\nRaw arguments: ${clip(raw, 500)}`);
}

function repairObject(text: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(jsonrepair(text));
    return isPlainObject(value) ? value : undefined;
  } catch {
    // Unrepairable: the caller falls back to the one-key rescue and then to an error the model reads.
    return undefined;
  }
}

function rescueOneKey(raw: string): Record<string, unknown> | undefined {
  for (const key of RESCUE_KEYS) {
    const match = new RegExp(`"${key}"\\s*:\\s*"((?:[^"\\\\]|\\\\.)*)"`, 's').exec(raw);
    const captured = match?.[1];
    if (captured === undefined) continue;
    const unescaped = safeParseJson(`"${captured}"`);
    return { [key]: unescaped.ok && typeof unescaped.value === 'string' ? unescaped.value : captured };
  }
  return undefined;
}

function parseErrorText(reason: string, raw: string): string {
  return `JSON parse error: ${reason}\nRaw arguments: ${clip(raw, 500)}`;
}

function clip(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max)}...` : text;
}

/** The prepared-item facts for a call whose arguments could not be parsed (`✗` header, never runs). */
export function argumentErrorPreparation(toolName: string, raw: string, error: string): ToolPreparation {
  const firstLine = error.split('\n', 1)[0] ?? error;
  return {
    header: `✗ ${toolName}: ${firstLine}`,
    preview: clip(raw, 4000),
    needsApproval: false,
    approvalLabel: toolName,
    error,
  };
}
