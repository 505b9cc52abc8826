/**
 * Admin operations on prompt templates (`prompt_templates`): list, show, create, edit and delete manually written
 * templates. Templates synced from MCP servers (origin `mcp`) are read-only here: an edit or delete is FORBIDDEN (403);
 * they change with their server.
 */
import { z } from 'zod';
import { GatewayError } from '../../shared/errors.js';
import type { PromptTemplate, PromptTemplateStore } from '../../storage/index.js';
import { parseAdminInput } from './admin-input.js';

/** A template as the admin API shows it. */
export interface PromptTemplateView {
  name: string;
  category: string;
  description: string;
  content: string;
  variables: string[];
  is_default: boolean;
  origin: 'manual' | 'mcp';
  mcp_server: string;
  readonly: boolean;
  created_by: string;
  created: string;
  updated: string;
}

const NAME = /^[A-Za-z0-9][A-Za-z0-9_.:-]{0,127}$/;
/** The content limit the system message applies to a template (characters). */
export const MAX_TEMPLATE_CHARS = 32_768;

const fields = {
  content: z
    .string()
    .min(1, 'content must not be empty')
    .max(MAX_TEMPLATE_CHARS, `content is limited to ${MAX_TEMPLATE_CHARS} characters`),
  description: z.string().max(1000),
  category: z.string().max(100),
  variables: z.array(z.string().regex(/^[A-Za-z_][A-Za-z0-9_]{0,63}$/, 'variables must be identifiers')).max(50),
  is_default: z.boolean(),
};

/** The body of `POST /v1/api/admin/templates` and the flags of `sandpiper template create`. */
export const templateCreateSchema = z.strictObject({
  name: z
    .string({ error: 'name is required' })
    .regex(NAME, 'name must be letters, digits, "_", ".", ":" or "-" (at most 128)'),
  content: fields.content,
  description: fields.description.default(''),
  category: fields.category.default(''),
  variables: fields.variables.default([]),
  is_default: fields.is_default.default(false),
});

/** The body of `PATCH /v1/api/admin/templates/:name`: at least one field. */
export const templateEditSchema = z
  .strictObject({
    content: fields.content.optional(),
    description: fields.description.optional(),
    category: fields.category.optional(),
    variables: fields.variables.optional(),
    is_default: fields.is_default.optional(),
  })
  .refine((patch) => Object.values(patch).some((value) => value !== undefined), 'give at least one field to change');

function view(row: PromptTemplate): PromptTemplateView {
  return {
    name: row.name,
    category: row.category,
    description: row.description,
    content: row.content,
    variables: row.variables,
    is_default: row.isDefault,
    origin: row.origin,
    mcp_server: row.mcpServer,
    readonly: row.readonly || row.origin === 'mcp',
    created_by: row.createdBy,
    created: row.created,
    updated: row.updated,
  };
}

export async function listTemplates(store: PromptTemplateStore): Promise<PromptTemplateView[]> {
  return (await store.list()).map(view);
}

async function existing(store: PromptTemplateStore, name: string): Promise<PromptTemplate> {
  const row = await store.getByName(name);
  if (!row) throw new GatewayError('NOT_FOUND', `no prompt template named "${name.slice(0, 128)}"`);
  return row;
}

/** A template by name; NOT_FOUND when missing. */
export async function showTemplate(store: PromptTemplateStore, name: string): Promise<PromptTemplateView> {
  return view(await existing(store, name));
}

/** A template that may be changed here; FORBIDDEN for MCP-owned (read-only) ones. */
async function editable(store: PromptTemplateStore, name: string): Promise<PromptTemplate> {
  const row = await existing(store, name);
  if (row.readonly || row.origin === 'mcp') {
    throw new GatewayError(
      'FORBIDDEN',
      `prompt template "${row.name}" comes from MCP server "${row.mcpServer}" and is read-only`,
    );
  }
  return row;
}

export async function createTemplate(
  store: PromptTemplateStore,
  input: unknown,
  createdBy: string,
): Promise<PromptTemplateView> {
  const parsed = parseAdminInput(templateCreateSchema, input);
  const created = await store.create({
    name: parsed.name,
    content: parsed.content,
    description: parsed.description,
    category: parsed.category,
    variables: parsed.variables,
    isDefault: parsed.is_default,
    origin: 'manual',
    readonly: false,
    createdBy,
  });
  if (!created) throw new GatewayError('CONFLICT', `a prompt template named "${parsed.name}" already exists`);
  return view(created);
}

export async function editTemplate(
  store: PromptTemplateStore,
  name: string,
  input: unknown,
): Promise<PromptTemplateView> {
  const parsed = parseAdminInput(templateEditSchema, input);
  const row = await editable(store, name);
  const patch = {
    ...(parsed.content === undefined ? {} : { content: parsed.content }),
    ...(parsed.description === undefined ? {} : { description: parsed.description }),
    ...(parsed.category === undefined ? {} : { category: parsed.category }),
    ...(parsed.variables === undefined ? {} : { variables: parsed.variables }),
    ...(parsed.is_default === undefined ? {} : { isDefault: parsed.is_default }),
  };
  if (!(await store.update(row.templateId, patch)))
    throw new GatewayError('NOT_FOUND', `no prompt template named "${name.slice(0, 128)}"`);
  return view(await existing(store, name));
}

export async function deleteTemplate(store: PromptTemplateStore, name: string): Promise<PromptTemplateView> {
  const row = await editable(store, name);
  if (!(await store.delete(row.templateId)))
    throw new GatewayError('NOT_FOUND', `no prompt template named "${name.slice(0, 128)}"`);
  return view(row);
}
