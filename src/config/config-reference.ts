/**
 * The configuration reference, read from the schema: every key with its type, default, environment variable, tier
 * and meaning; rendered as docs/configuration.md and as config.example.toml (required and common keys only).
 */
import { z } from 'zod';
import { CONFIG_DOCS, type ConfigTier } from './config-docs.js';
import { configSchema } from './config-schema.js';
import { CONFIG_ENV_KEYS, PROVIDER_KEY_ENV } from './load-config.js';

export interface ConfigKey {
  /** Dotted key; a table named by the user is `<alias>` / `<name>` (or `<key>`). */
  key: string;
  section: string;
  type: string;
  /** The default as TOML, or undefined when the key has none. */
  defaultToml: string | undefined;
  env: string | undefined;
  tier: ConfigTier;
  doc: string;
  example: string | undefined;
}

interface JsonSchema {
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  additionalProperties?: JsonSchema | boolean;
  items?: JsonSchema;
  enum?: unknown[];
  const?: unknown;
  anyOf?: JsonSchema[];
  default?: unknown;
  description?: string;
}

const TABLE_NAMES: Readonly<Record<string, string>> = { models: '<alias>', servers: '<name>' };

/** Every key of the schema, in schema order. */
export function configKeys(): ConfigKey[] {
  const schema = z.toJSONSchema(configSchema, { io: 'input', unrepresentable: 'any' }) as JsonSchema;
  const keys: ConfigKey[] = [];
  walk(schema, [], keys);
  return keys;
}

function walk(schema: JsonSchema, path: string[], out: ConfigKey[]): void {
  if (schema.properties) {
    for (const [name, child] of Object.entries(schema.properties)) walk(child, [...path, name], out);
    return;
  }
  const table = typeof schema.additionalProperties === 'object' ? schema.additionalProperties : undefined;
  if (table?.properties) {
    walk(table, [...path, TABLE_NAMES[path.at(-1) ?? ''] ?? '<key>'], out);
    return;
  }
  out.push(describeKey(schema, path));
}

function describeKey(schema: JsonSchema, path: string[]): ConfigKey {
  const key = path.join('.');
  const documented = CONFIG_DOCS[key];
  return {
    key,
    section: path[0] ?? '',
    type: typeOf(schema),
    defaultToml: schema.default === undefined ? undefined : toToml(schema.default),
    env: envOf(key),
    tier: documented?.tier ?? 'advanced',
    doc: schema.description ?? documented?.doc ?? '',
    example: documented?.example,
  };
}

function typeOf(schema: JsonSchema): string {
  if (schema.enum) return schema.enum.map((value) => JSON.stringify(value)).join(' \\| ');
  if (schema.const !== undefined) return JSON.stringify(schema.const);
  if (schema.anyOf) return schema.anyOf.map(typeOf).join(' \\| ');
  if (schema.type === 'array') return `array of ${schema.items ? typeOf(schema.items) : 'values'}`;
  if (schema.type === 'object') return 'table';
  return Array.isArray(schema.type) ? schema.type.join(' \\| ') : (schema.type ?? 'any');
}

function envOf(key: string): string | undefined {
  if (key === 'models.<alias>.api_key') return Object.values(PROVIDER_KEY_ENV).join(' / ');
  return CONFIG_ENV_KEYS.find(([, dotted]) => dotted === key)?.[0];
}

/** A TOML literal of a default value. */
export function toToml(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map(toToml).join(', ')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value).map(([name, inner]) => `${JSON.stringify(name)} = ${toToml(inner)}`);
    return entries.length === 0 ? '{}' : `{ ${entries.join(', ')} }`;
  }
  return String(value);
}
