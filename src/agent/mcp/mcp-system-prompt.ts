/** The MCP part of the system message: catalogs of up to 50 resources (+20 templates) and 30 prompts. */
import type { McpCatalog } from './mcp-catalog.js';

const MAX_RESOURCES = 50;
const MAX_TEMPLATES = 20;
const MAX_PROMPTS = 30;

/** Python html.escape semantics: & < > " '. */
export function escapeHtml(text: string): string {
  return text
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#x27;');
}

function entryLine(uri: string, description: string): string {
  const line = `  ${escapeHtml(uri)}`;
  return description === '' ? line : `${line}  ${escapeHtml(description.slice(0, 100))}`;
}

function resourcesBlock(catalog: McpCatalog): string | undefined {
  const concrete = catalog.resources.filter((resource) => !resource.isTemplate);
  const templates = catalog.resources.filter((resource) => resource.isTemplate);
  if (concrete.length === 0 && templates.length === 0) return undefined;
  const lines = ['<mcp-resources>'];
  for (const resource of concrete.slice(0, MAX_RESOURCES)) lines.push(entryLine(resource.uri, resource.description));
  if (templates.length > 0) {
    lines.push('', 'Resource templates (construct a URI and use read_resource):');
    for (const template of templates.slice(0, MAX_TEMPLATES)) lines.push(entryLine(template.uri, template.description));
  }
  lines.push('</mcp-resources>', "Use read_resource(uri='...') to access the resources listed above.");
  return lines.join('\n');
}

function promptsBlock(catalog: McpCatalog): string | undefined {
  if (catalog.prompts.length === 0) return undefined;
  const lines = ['<mcp-prompts>'];
  for (const prompt of catalog.prompts.slice(0, MAX_PROMPTS)) {
    // Prompt names are restricted to [A-Za-z0-9_-] by the catalog, so they are safe to print unescaped and copyable.
    const args = prompt.arguments.map((arg) => escapeHtml(arg.name)).join(', ');
    const description = prompt.description === '' ? '' : `  ${escapeHtml(prompt.description.slice(0, 100))}`;
    lines.push(`  ${prompt.name}(${args})${description}`);
  }
  lines.push('</mcp-prompts>', "Use use_prompt(name='...', arguments={...}) to invoke the prompts listed above.");
  return lines.join('\n');
}

/** Empty string when there is nothing to list. */
export function buildMcpSystemPromptSection(catalog: McpCatalog): string {
  return [resourcesBlock(catalog), promptsBlock(catalog)]
    .filter((block): block is string => block !== undefined)
    .join('\n\n');
}
