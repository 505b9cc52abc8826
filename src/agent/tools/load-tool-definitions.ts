/** Loads and validates the built-in tool definitions from `tools/<name>.json` and derives the tool sets. */
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { ConfigError } from '../../shared/errors.js';
import { packageRoot } from '../../shared/package-root.js';
import type { ToolSchema } from '../providers/model-provider.js';
import type { ToolDefinition } from './tool.js';

/** The package's `tools/` folder (data, not code), found from src/ and from the compiled dist/src/ alike. */
export const DEFAULT_TOOLS_DIRECTORY = path.join(packageRoot(import.meta.url), 'tools');

const toolFileSchema = z.strictObject({
  name: z.string().regex(/^[a-z][a-z0-9_]*$/, 'must be snake_case'),
  description: z.string().trim().min(1),
  parameters: z.looseObject({
    type: z.literal('object'),
    properties: z.record(z.string(), z.record(z.string(), z.unknown())),
    required: z.array(z.string()).optional(),
  }),
  agent: z.boolean(),
  task_agent: z.boolean(),
  auto_approve: z.boolean(),
  primary_key: z.string().min(1).optional(),
});

/** Every loaded definition and the subsets derived from the metadata keys. */
export interface ToolDefinitionSet {
  /** All definitions, sorted by name. */
  all: readonly ToolDefinition[];
  /** Offered to read-only (planning) sub-agents (`agent: true`). */
  agent: readonly ToolDefinition[];
  /** Offered to task sub-agents (`task_agent: true`). */
  taskAgent: readonly ToolDefinition[];
  /** Names that run without approval inside sub-agents (`auto_approve: true`). */
  autoApproved: ReadonlySet<string>;
  /** Tool name → argument a bare string is assigned to. */
  primaryKeys: ReadonlyMap<string, string>;
  /** Names of all built-in tools. */
  names: ReadonlySet<string>;
}

export interface LoadToolDefinitionsOptions {
  /** Folder holding the `<name>.json` files; defaults to the repository's `tools/`. */
  directory?: string;
  signal?: AbortSignal;
}

/** Reads every `*.json` file of the folder; any invalid file fails loudly with a ConfigError naming it. */
export async function loadToolDefinitions(options: LoadToolDefinitionsOptions = {}): Promise<ToolDefinitionSet> {
  const directory = options.directory ?? DEFAULT_TOOLS_DIRECTORY;
  const files = (await readdir(directory)).filter((file) => file.endsWith('.json')).sort();
  const definitions: ToolDefinition[] = [];
  for (const file of files) {
    options.signal?.throwIfAborted();
    const text = await readFile(path.join(directory, file), {
      encoding: 'utf8',
      ...(options.signal ? { signal: options.signal } : {}),
    });
    definitions.push(parseToolFile(file, text));
  }
  const seen = new Set<string>();
  for (const definition of definitions) {
    if (seen.has(definition.name)) throw new ConfigError([`tools: duplicate tool name '${definition.name}'`]);
    seen.add(definition.name);
  }
  return deriveToolSets(definitions);
}

/** Validates one file's text; exported for tests. */
export function parseToolFile(file: string, text: string): ToolDefinition {
  const where = `tools/${file}`;
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (error) {
    throw new ConfigError([`${where}: not valid JSON (${error instanceof Error ? error.message : 'parse error'})`]);
  }
  const parsed = toolFileSchema.safeParse(raw);
  if (!parsed.success) {
    throw new ConfigError(
      parsed.error.issues.map((issue) => `${where}: ${issue.path.join('.') || '(root)'}: ${issue.message}`),
    );
  }
  const file_ = parsed.data;
  if (`${file_.name}.json` !== file)
    throw new ConfigError([`${where}: name '${file_.name}' does not match the file name`]);
  const properties = Object.keys(file_.parameters.properties);
  for (const required of file_.parameters.required ?? []) {
    if (!properties.includes(required)) throw new ConfigError([`${where}: required '${required}' is not a property`]);
  }
  if (file_.primary_key !== undefined && !properties.includes(file_.primary_key)) {
    throw new ConfigError([`${where}: primary_key '${file_.primary_key}' is not a property`]);
  }
  return {
    name: file_.name,
    description: file_.description,
    parameters: file_.parameters,
    agent: file_.agent,
    taskAgent: file_.task_agent,
    autoApprove: file_.auto_approve,
    ...(file_.primary_key === undefined ? {} : { primaryKey: file_.primary_key }),
  };
}

/** Derives the sub-agent sets, the auto-approved names and the primary-key map. */
export function deriveToolSets(definitions: readonly ToolDefinition[]): ToolDefinitionSet {
  const all = [...definitions].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const primaryKeys = new Map<string, string>();
  for (const definition of all) {
    if (definition.primaryKey !== undefined) primaryKeys.set(definition.name, definition.primaryKey);
  }
  return {
    all,
    agent: all.filter((definition) => definition.agent),
    taskAgent: all.filter((definition) => definition.taskAgent),
    autoApproved: new Set(all.filter((definition) => definition.autoApprove).map((definition) => definition.name)),
    primaryKeys,
    names: new Set(all.map((definition) => definition.name)),
  };
}

const schemas = new WeakMap<ToolDefinition, ToolSchema>();

/**
 * The model-facing schema: metadata keys stripped. One object per definition (definitions are not changed once
 * made), so what is derived from a schema on every model call (its size) can be remembered with it.
 */
export function toToolSchema(definition: ToolDefinition): ToolSchema {
  let schema = schemas.get(definition);
  if (schema === undefined) {
    schema = { name: definition.name, description: definition.description, parameters: definition.parameters };
    schemas.set(definition, schema);
  }
  return schema;
}
