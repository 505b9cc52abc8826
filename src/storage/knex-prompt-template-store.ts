/** PromptTemplateStore on knex: manual templates and read-only ones synced from MCP servers. */
import type { Knex } from 'knex';
import { newUuid } from '../shared/ids.js';
import { isoNow } from '../shared/time.js';
import type {
  PromptTemplate,
  PromptTemplateInput,
  PromptTemplateStore,
  TemplateOrigin,
} from './prompt-template-store.js';
import { definedOnly, fromDbBool, parseStringArray, text, toDbBool, type DbRow } from './rows.js';
import { conflictError, guard, isUniqueViolation } from './storage-errors.js';

type TemplatePatch = Partial<
  Pick<PromptTemplate, 'content' | 'description' | 'variables' | 'isDefault' | 'category' | 'mcpServer'>
>;

function toTemplate(row: DbRow): PromptTemplate {
  return {
    templateId: text(row.template_id),
    name: text(row.name),
    category: text(row.category),
    content: text(row.content),
    description: text(row.description),
    variables: parseStringArray(row.variables),
    isDefault: fromDbBool(row.is_default),
    orgId: text(row.org_id),
    createdBy: text(row.created_by),
    origin: row.origin === 'mcp' ? 'mcp' : 'manual',
    mcpServer: text(row.mcp_server),
    readonly: fromDbBool(row.readonly),
    created: text(row.created),
    updated: text(row.updated),
  };
}

function toDbRow(input: PromptTemplateInput, now: string): Record<string, unknown> {
  return {
    template_id: newUuid(),
    name: input.name,
    category: input.category ?? 'general',
    content: input.content,
    description: input.description ?? '',
    variables: JSON.stringify(input.variables ?? []),
    is_default: toDbBool(input.isDefault ?? false),
    org_id: input.orgId ?? '',
    created_by: input.createdBy ?? '',
    origin: input.origin ?? 'manual',
    mcp_server: input.mcpServer ?? '',
    readonly: toDbBool(input.readonly ?? false),
    created: now,
    updated: now,
  };
}

export class KnexPromptTemplateStore implements PromptTemplateStore {
  constructor(private readonly knex: Knex) {}

  create(input: PromptTemplateInput): Promise<PromptTemplate | undefined> {
    return guard('promptTemplates.create', async () => {
      const row = toDbRow(input, isoNow());
      const inserted = await this.knex('prompt_templates')
        .insert(row)
        .onConflict('name')
        .ignore()
        .returning('template_id');
      return inserted.length > 0 ? toTemplate(row) : undefined;
    });
  }

  getByName(name: string): Promise<PromptTemplate | undefined> {
    return guard('promptTemplates.getByName', async () => {
      const row = (await this.knex('prompt_templates').where({ name }).first()) as DbRow | undefined;
      return row ? toTemplate(row) : undefined;
    });
  }

  update(templateId: string, patch: TemplatePatch): Promise<boolean> {
    return guard('promptTemplates.update', async () => {
      const columns = definedOnly({
        content: patch.content,
        description: patch.description,
        variables: patch.variables === undefined ? undefined : JSON.stringify(patch.variables),
        is_default: patch.isDefault === undefined ? undefined : toDbBool(patch.isDefault),
        category: patch.category,
        mcp_server: patch.mcpServer,
      });
      try {
        const changed = await this.knex('prompt_templates')
          .where({ template_id: templateId })
          .update({ ...columns, updated: isoNow() });
        return changed > 0;
      } catch (error) {
        if (isUniqueViolation(error)) throw conflictError('a template with this name exists', error);
        throw error;
      }
    });
  }

  delete(templateId: string): Promise<boolean> {
    return guard('promptTemplates.delete', async () => {
      const removed = await this.knex('prompt_templates').where({ template_id: templateId }).delete();
      return removed > 0;
    });
  }

  list(origin?: TemplateOrigin): Promise<PromptTemplate[]> {
    return guard('promptTemplates.list', async () => {
      const query = this.knex('prompt_templates');
      if (origin !== undefined) query.where({ origin });
      const rows = (await query.orderBy('name')) as DbRow[];
      return rows.map(toTemplate);
    });
  }
}
