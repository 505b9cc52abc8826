/** MCP elicitation schemas → platform-neutral form fields, and submitted text → validated, typed content (pure). */
import type { FormField } from '../channels/channel-adapter.js';
import { isPlainObject } from '../shared/json.js';
import { err, ok, type Result } from '../shared/result.js';

const LABEL_MAX = 45;
const PLACEHOLDER_MAX = 100;
const TEXT_MAX = 4000;
const MULTILINE_FROM = 200;
const STRING_FORMATS = ['email', 'uri', 'date', 'date-time'] as const;
type StringFormat = (typeof STRING_FORMATS)[number];

export interface EnumOption {
  value: string;
  title: string;
}

/** What a field accepts, read from one property of the requested schema. */
export type FieldKind =
  | { type: 'string'; format: StringFormat | undefined; minLength: number | undefined; maxLength: number | undefined }
  | { type: 'number' | 'integer'; minimum: number | undefined; maximum: number | undefined }
  | { type: 'boolean' }
  | { type: 'enum'; options: readonly EnumOption[] };

export interface ElicitationField {
  /** The schema property the value is stored under. */
  property: string;
  kind: FieldKind;
  field: FormField;
}

export type ElicitationValue = string | number | boolean;

/**
 * Maps a requested schema (a flat object of primitive properties) to at most `maxFields` text fields. The error is a
 * plain-text reason the form cannot be shown (too many fields, an unsupported type), meant for the card.
 */
export function buildElicitationForm(schema: unknown, maxFields: number): Result<ElicitationField[], string> {
  if (!isPlainObject(schema) || (schema.type !== undefined && schema.type !== 'object'))
    return err('the request has no form schema');
  const properties = isPlainObject(schema.properties) ? Object.entries(schema.properties) : [];
  if (maxFields <= 0) return err('this platform cannot show forms');
  if (properties.length > maxFields) {
    return err(`it asks for ${properties.length} fields and at most ${maxFields} fit in a form here`);
  }
  const required = new Set(
    Array.isArray(schema.required) ? schema.required.filter((name): name is string => typeof name === 'string') : [],
  );
  const fields: ElicitationField[] = [];
  for (const [index, [property, definition]] of properties.entries()) {
    const label =
      isPlainObject(definition) && typeof definition.title === 'string' && definition.title.trim()
        ? definition.title.trim()
        : property;
    const kind = isPlainObject(definition) ? kindOf(definition) : undefined;
    if (!kind || !isPlainObject(definition))
      return err(`the field “${label}” has a type that cannot be typed into a text box`);
    fields.push({ property, kind, field: toFormField(`f${index}`, label, required.has(property), kind, definition) });
  }
  return ok(fields);
}

function kindOf(definition: Record<string, unknown>): FieldKind | undefined {
  const options = enumOptions(definition);
  if (options) return options.length > 0 ? { type: 'enum', options } : undefined;
  switch (definition.type) {
    case 'string': {
      const format = STRING_FORMATS.find((candidate) => candidate === definition.format);
      return {
        type: 'string',
        format,
        minLength: numberOr(definition.minLength),
        maxLength: numberOr(definition.maxLength),
      };
    }
    case 'number':
    case 'integer':
      return { type: definition.type, minimum: numberOr(definition.minimum), maximum: numberOr(definition.maximum) };
    case 'boolean':
      return { type: 'boolean' };
    default:
      return undefined;
  }
}

/** Single-select enums in their three spellings: `enum`, `enum` + `enumNames`, `oneOf` of `{const, title}`. */
function enumOptions(definition: Record<string, unknown>): EnumOption[] | undefined {
  if (definition.type !== undefined && definition.type !== 'string') return undefined;
  if (Array.isArray(definition.enum)) {
    const names = Array.isArray(definition.enumNames) ? definition.enumNames : [];
    return definition.enum.map((value, index) => {
      const name: unknown = names[index];
      return { value: String(value), title: typeof name === 'string' && name ? name : String(value) };
    });
  }
  if (Array.isArray(definition.oneOf)) {
    return definition.oneOf.filter(isPlainObject).map((option) => ({
      value: String(option.const),
      title: typeof option.title === 'string' && option.title ? option.title : String(option.const),
    }));
  }
  return undefined;
}

function toFormField(
  id: string,
  label: string,
  required: boolean,
  kind: FieldKind,
  definition: Record<string, unknown>,
): FormField {
  const maxLength =
    kind.type === 'string' && kind.maxLength !== undefined ? Math.min(Math.max(1, kind.maxLength), TEXT_MAX) : TEXT_MAX;
  const choices = choicesFor(kind);
  return {
    ...(choices === undefined ? {} : { choices }),
    id,
    label: clip(label, LABEL_MAX),
    required,
    placeholder: clip(placeholderFor(kind, definition), PLACEHOLDER_MAX),
    value: clip(defaultText(kind, definition.default), maxLength),
    multiline: kind.type === 'string' && kind.format === undefined && (kind.maxLength ?? 0) > MULTILINE_FROM,
    maxLength,
  };
}

/** The fixed answers of a choice field (what `parseValue` accepts by title), undefined for free text. */
function choicesFor(kind: FieldKind): string[] | undefined {
  if (kind.type === 'boolean') return ['yes', 'no'];
  if (kind.type === 'enum') return kind.options.map((option) => option.title);
  return undefined;
}

function placeholderFor(kind: FieldKind, definition: Record<string, unknown>): string {
  switch (kind.type) {
    case 'enum':
      return `One of: ${kind.options.map((option) => option.title).join(', ')}`;
    case 'boolean':
      return 'yes or no';
    case 'number':
    case 'integer':
      return `${kind.type === 'integer' ? 'A whole number' : 'A number'}${rangeText(kind.minimum, kind.maximum)}`;
    case 'string': {
      const hint = {
        email: 'An email address',
        uri: 'A URL (https://…)',
        date: 'A date (YYYY-MM-DD)',
        'date-time': 'A date and time (ISO 8601)',
      };
      if (kind.format) return hint[kind.format];
      return typeof definition.description === 'string' ? definition.description : '';
    }
  }
}

function rangeText(minimum: number | undefined, maximum: number | undefined): string {
  if (minimum !== undefined && maximum !== undefined) return ` from ${minimum} to ${maximum}`;
  if (minimum !== undefined) return ` of at least ${minimum}`;
  if (maximum !== undefined) return ` of at most ${maximum}`;
  return '';
}

function defaultText(kind: FieldKind, value: unknown): string {
  if (value === undefined || value === null) return '';
  if (kind.type === 'boolean') return value === true ? 'yes' : value === false ? 'no' : '';
  if (kind.type === 'enum') return kind.options.find((option) => option.value === String(value))?.title ?? '';
  return typeof value === 'string' || typeof value === 'number' ? String(value) : '';
}

/**
 * Converts submitted text (keyed by field id) into elicitation content keyed by property. Empty optional fields are
 * left out; every problem is reported (plain text naming the field), so one answer can fix them all.
 */
export function parseElicitationValues(
  fields: readonly ElicitationField[],
  values: Readonly<Record<string, string>>,
): Result<Record<string, ElicitationValue>, string[]> {
  const content: Record<string, ElicitationValue> = {};
  const problems: string[] = [];
  for (const { property, kind, field } of fields) {
    const text = (values[field.id] ?? '').trim();
    if (text === '') {
      if (field.required) problems.push(`${field.label} is required.`);
      continue;
    }
    const parsed = parseValue(kind, text);
    if (parsed.ok) content[property] = parsed.value;
    else problems.push(`${field.label}: ${parsed.error}`);
  }
  return problems.length > 0 ? err(problems) : ok(content);
}

function parseValue(kind: FieldKind, text: string): Result<ElicitationValue, string> {
  switch (kind.type) {
    case 'boolean': {
      const answer = text.toLowerCase();
      if (['yes', 'y', 'true'].includes(answer)) return ok(true);
      if (['no', 'n', 'false'].includes(answer)) return ok(false);
      return err('answer yes or no.');
    }
    case 'enum': {
      const lower = text.toLowerCase();
      const option =
        kind.options.find((candidate) => candidate.value === text) ??
        kind.options.find(
          (candidate) => candidate.title.toLowerCase() === lower || candidate.value.toLowerCase() === lower,
        );
      return option
        ? ok(option.value)
        : err(`choose one of ${kind.options.map((candidate) => candidate.title).join(', ')}.`);
    }
    case 'number':
    case 'integer':
      return parseNumber(kind, text);
    case 'string':
      return parseString(kind, text);
  }
}

function parseNumber(kind: Extract<FieldKind, { type: 'number' | 'integer' }>, text: string): Result<number, string> {
  const value = /^[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/i.test(text) ? Number(text) : Number.NaN;
  if (!Number.isFinite(value)) return err(kind.type === 'integer' ? 'enter a whole number.' : 'enter a number.');
  if (kind.type === 'integer' && !Number.isInteger(value)) return err('enter a whole number.');
  if ((kind.minimum !== undefined && value < kind.minimum) || (kind.maximum !== undefined && value > kind.maximum)) {
    return err(`enter a number${rangeText(kind.minimum, kind.maximum)}.`);
  }
  return ok(value);
}

function parseString(kind: Extract<FieldKind, { type: 'string' }>, text: string): Result<string, string> {
  if (kind.minLength !== undefined && text.length < kind.minLength)
    return err(`enter at least ${kind.minLength} characters.`);
  if (kind.maxLength !== undefined && text.length > kind.maxLength)
    return err(`enter at most ${kind.maxLength} characters.`);
  switch (kind.format) {
    case 'email':
      return /^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(text) ? ok(text) : err('enter an email address like name@example.com.');
    case 'uri':
      return URL.canParse(text) && /^[a-z][a-z0-9+.-]*:/i.test(text)
        ? ok(text)
        : err('enter a full URL like https://example.com.');
    case 'date':
      return isDate(text) ? ok(text) : err('enter a date as YYYY-MM-DD.');
    case 'date-time':
      return /^\d{4}-\d{2}-\d{2}T/.test(text) && !Number.isNaN(Date.parse(text))
        ? ok(text)
        : err('enter a date and time like 2025-01-31T14:00:00Z.');
    default:
      return ok(text);
  }
}

function isDate(text: string): boolean {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(text)) return false;
  const date = new Date(`${text}T00:00:00Z`);
  return !Number.isNaN(date.getTime()) && date.toISOString().slice(0, 10) === text;
}

function numberOr(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
}

function clip(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}
