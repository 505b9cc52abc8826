/** Mirrors MCP prompts into `prompt_templates` (origin `mcp`, read-only); manual rows win; never deletes what it cannot see. */
import type { PromptTemplate, PromptTemplateStore } from '../../storage/prompt-template-store.js';
import type { CatalogPrompt } from './mcp-catalog.js';
import { track, type ManagerContext } from './mcp-manager-context.js';

export interface PromptSyncResult {
  added: string[];
  updated: string[];
  removed: string[];
  skipped: string[];
}

/** The stored summary of an MCP prompt: description plus an argument list (not the expanded prompt). */
export function promptTemplateContent(prompt: CatalogPrompt): string {
  const lines: string[] = [];
  const description = prompt.description.slice(0, 4096);
  if (description !== '') lines.push(description);
  if (prompt.arguments.length > 0) {
    lines.push('\nArguments:');
    for (const arg of prompt.arguments) {
      const required = arg.required ? ' (required)' : '';
      lines.push(`  - ${arg.name.slice(0, 128)}${required}: ${arg.description.slice(0, 512)}`);
    }
  }
  return lines.length === 0 ? prompt.name.slice(0, 256) : lines.join('\n');
}

/** Starts a sync pass in the background when a template store is configured (`forgetServers` as for a pass). */
export function schedulePromptSync(context: ManagerContext, forgetServers: readonly string[] = []): void {
  if (context.settings.promptTemplates) track(context, syncPromptTemplates(context, forgetServers), 'prompt sync');
}

/**
 * One sync pass, serialized per manager. Rows are removed only for servers this process manages and has listed
 * successfully (or explicitly removed via `forgetServers`), so processes with different connectivity do not flap rows.
 */
export async function syncPromptTemplates(
  context: ManagerContext,
  forgetServers: readonly string[] = [],
): Promise<PromptSyncResult> {
  const store = context.settings.promptTemplates;
  const result: PromptSyncResult = { added: [], updated: [], removed: [], skipped: [] };
  if (!store) return result;
  return context.syncMutex.run(async () => {
    const prompts = context.catalog.prompts;
    const listedServers = new Set(forgetServers);
    for (const [name, state] of context.servers)
      if (state.connection && state.hasListedPrompts) listedServers.add(name);
    const current = new Set<string>();
    for (const prompt of prompts) {
      if (!listedServers.has(prompt.server)) continue;
      current.add(prompt.name.slice(0, 256));
      await upsertPrompt(store, prompt, result);
    }
    for (const row of await store.list('mcp')) {
      if (current.has(row.name) || !listedServers.has(row.mcpServer)) continue;
      if (await store.delete(row.templateId)) result.removed.push(row.name);
    }
    if (result.added.length + result.updated.length + result.removed.length > 0) {
      context.settings.logger.info(
        {
          added: result.added.length,
          updated: result.updated.length,
          removed: result.removed.length,
          skipped: result.skipped.length,
        },
        'MCP prompt sync',
      );
    }
    return result;
  });
}

async function upsertPrompt(
  store: PromptTemplateStore,
  prompt: CatalogPrompt,
  result: PromptSyncResult,
): Promise<void> {
  const name = prompt.name.slice(0, 256);
  const server = prompt.server.slice(0, 128);
  const content = promptTemplateContent(prompt);
  const description = prompt.description.slice(0, 4096).trim() || `MCP prompt ${name} from ${server}`;
  const variables = prompt.arguments.map((arg) => arg.name.slice(0, 128));
  const existing = await store.getByName(name);
  if (existing) {
    if (existing.origin !== 'mcp') {
      result.skipped.push(name);
      return;
    }
    if (!needsUpdate(existing, content, description, variables, server)) return;
    // isDefault is always reset: a server must not ride an admin-promoted default.
    await store.update(existing.templateId, {
      content,
      description,
      variables,
      isDefault: false,
      category: 'mcp',
      mcpServer: server,
    });
    result.updated.push(name);
    return;
  }
  const created = await store.create({
    name,
    content,
    description,
    variables,
    category: 'mcp',
    isDefault: false,
    orgId: '',
    createdBy: '',
    origin: 'mcp',
    mcpServer: server,
    readonly: true,
  });
  if (created) result.added.push(name);
  else result.skipped.push(name);
}

function needsUpdate(
  row: PromptTemplate,
  content: string,
  description: string,
  variables: string[],
  server: string,
): boolean {
  return (
    row.content !== content ||
    row.description !== description ||
    row.isDefault ||
    row.mcpServer !== server ||
    row.category !== 'mcp' ||
    JSON.stringify(row.variables) !== JSON.stringify(variables)
  );
}
