/**
 * `template list | show | create | edit | delete`: prompt templates in the database (the admin API's
 * `/v1/api/admin/templates` does the same). Templates synced from MCP servers are read-only: edit and delete refuse them.
 */
import { readFile } from 'node:fs/promises';
import {
  createTemplate,
  deleteTemplate,
  editTemplate,
  listTemplates,
  showTemplate,
  type PromptTemplateView,
} from '../gateway/admin/admin-prompt-templates.js';
import { UsageError } from '../shared/errors.js';
import { stringFlag, writeLine, type CliCommand, type CliContext } from './cli-context.js';
import { JSON_OPTION, printJson, wantsJson } from './cli-output.js';
import { type Confirmation, listCommand, recordCommand, requirePositionals, withStores } from './command-table.js';

const FIELD_OPTIONS = {
  ...JSON_OPTION,
  content: { type: 'string' },
  file: { type: 'string' },
  description: { type: 'string' },
  category: { type: 'string' },
  variable: { type: 'string', multiple: true },
  default: { type: 'boolean' },
  'no-default': { type: 'boolean' },
} as const;

/** The fields the flags set (`--content` or `--file`, not both); only the given ones. */
async function fieldsOf(context: CliContext): Promise<Record<string, unknown>> {
  const content = stringFlag(context, 'content');
  const file = stringFlag(context, 'file');
  if (content !== undefined && file !== undefined) throw new UsageError('give --content or --file, not both');
  const fields: Record<string, unknown> = {};
  if (content !== undefined) fields['content'] = content;
  if (file !== undefined) fields['content'] = await readFile(file, 'utf8');
  for (const flag of ['description', 'category']) {
    const value = stringFlag(context, flag);
    if (value !== undefined) fields[flag] = value;
  }
  const variables = context.flags['variable'];
  if (variables !== undefined) fields['variables'] = Array.isArray(variables) ? variables : [variables];
  if (context.flags['default'] === true) fields['is_default'] = true;
  if (context.flags['no-default'] === true) fields['is_default'] = false;
  return fields;
}

/** A changed template's confirmation: `<verb> prompt template NAME (N characters)`, or `{template}` with --json. */
function confirmTemplate(verb: string): Confirmation<PromptTemplateView> {
  return {
    key: 'template',
    line: (template) => `${verb} prompt template ${template.name} (${template.content.length} characters)`,
  };
}

export const templateListCommand = listCommand({
  name: 'template list',
  usage: 'sandpiper template list [--json]',
  summary: 'list the prompt templates (manual ones and read-only ones synced from MCP servers)',
  key: 'templates',
  read: () => (stores) => listTemplates(stores.promptTemplates),
  table: {
    headers: ['name', 'origin', 'category', 'default', 'characters', 'description'],
    row: (t) => [
      t.name,
      t.origin === 'mcp' ? `mcp (${t.mcp_server}, read-only)` : 'manual',
      t.category,
      t.is_default ? 'yes' : 'no',
      t.content.length,
      t.description,
    ],
    empty: 'no prompt templates',
  },
});

export const templateShowCommand: CliCommand = {
  name: 'template show',
  usage: 'sandpiper template show NAME [--json]',
  summary: "print one prompt template's content",
  options: JSON_OPTION,
  async run(context) {
    const [name] = requirePositionals(context, 1, this.usage) as [string];
    const template = await withStores(context, (stores) => showTemplate(stores.promptTemplates, name));
    if (wantsJson(context)) printJson(context, { template });
    else writeLine(context.io.stdout, template.content);
    return 0;
  },
};

export const templateCreateCommand = recordCommand({
  name: 'template create',
  usage:
    'sandpiper template create NAME (--content TEXT | --file PATH) [--description D] [--category C] [--variable V]... [--default] [--json]',
  summary: 'write a new prompt template',
  options: FIELD_OPTIONS,
  arguments: 1,
  async change([name = ''], context) {
    const input = { name, ...(await fieldsOf(context)) };
    return {
      audit: { action: 'template.create', target: name },
      apply: (stores) => createTemplate(stores.promptTemplates, input, 'cli'),
    };
  },
  confirm: confirmTemplate('created'),
});

export const templateEditCommand = recordCommand({
  name: 'template edit',
  usage:
    'sandpiper template edit NAME [--content TEXT | --file PATH] [--description D] [--category C] [--variable V]... [--default | --no-default] [--json]',
  summary: 'change a manual prompt template (MCP-owned ones are read-only)',
  options: FIELD_OPTIONS,
  arguments: 1,
  async change([name = ''], context) {
    const input = await fieldsOf(context);
    return {
      audit: { action: 'template.edit', target: name },
      apply: (stores) => editTemplate(stores.promptTemplates, name, input),
    };
  },
  confirm: confirmTemplate('edited'),
});

export const templateDeleteCommand = recordCommand({
  name: 'template delete',
  usage: 'sandpiper template delete NAME [--json]',
  summary: 'delete a manual prompt template (MCP-owned ones are read-only)',
  arguments: 1,
  change: ([name = '']) => ({
    audit: { action: 'template.delete', target: name },
    apply: (stores) => deleteTemplate(stores.promptTemplates, name),
  }),
  confirm: confirmTemplate('deleted'),
});
