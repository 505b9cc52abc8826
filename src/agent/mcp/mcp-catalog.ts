/** Per-server discovery results merged into immutable catalogs (rebuilt copy-on-write, read by sessions per request). */
import type { Logger } from '../../shared/logger.js';
import type { McpPromptInfo, McpResourceInfo, McpToolInfo } from './mcp-types.js';

/** What one server listed; replaced as a whole on refresh. */
export interface ServerCatalog {
  tools: McpToolInfo[];
  resources: McpResourceInfo[];
  templates: McpResourceInfo[];
  prompts: McpPromptInfo[];
}

export interface CatalogTool {
  /** `mcp__<server>__<tool>`. */
  name: string;
  server: string;
  originalName: string;
  /** The OpenAI function format sent to models. */
  function: { name: string; description: string; parameters: Record<string, unknown> };
  /** MCP tool annotations (readOnlyHint, destructiveHint, …), kept as the server sent them. */
  annotations: Record<string, unknown>;
}

export interface CatalogResource extends McpResourceInfo {
  server: string;
  isTemplate: boolean;
}

export interface CatalogPrompt {
  /** `mcp__<server>__<prompt>`. */
  name: string;
  originalName: string;
  server: string;
  description: string;
  arguments: McpPromptInfo['arguments'];
}

export interface McpCatalog {
  readonly tools: readonly CatalogTool[];
  readonly toolMap: ReadonlyMap<string, CatalogTool>;
  /** Concrete resources then templates. */
  readonly resources: readonly CatalogResource[];
  readonly resourceMap: ReadonlyMap<string, CatalogResource>;
  /** Static prefix (text before the first `{`) → template. */
  readonly templatePrefixes: ReadonlyMap<string, CatalogResource>;
  readonly prompts: readonly CatalogPrompt[];
  readonly promptMap: ReadonlyMap<string, CatalogPrompt>;
}

export const EMPTY_CATALOG: McpCatalog = buildMcpCatalog(new Map());

/** Provider function names allow `[A-Za-z0-9_-]{1,64}`; a name outside that would be rejected by the model API. */
const MODEL_NAME = /^[A-Za-z0-9_-]{1,64}$/;

export function mcpToolName(server: string, tool: string): string {
  return `mcp__${server}__${tool}`;
}

/** Builds brand-new maps and arrays in server order; the caller swaps the reference in one step. */
export function buildMcpCatalog(servers: ReadonlyMap<string, ServerCatalog>, logger?: Logger): McpCatalog {
  const tools: CatalogTool[] = [];
  const toolMap = new Map<string, CatalogTool>();
  const prompts: CatalogPrompt[] = [];
  const promptMap = new Map<string, CatalogPrompt>();
  for (const [server, catalog] of servers) {
    for (const tool of catalog.tools) {
      const name = mcpToolName(server, tool.name);
      if (!MODEL_NAME.test(name) || toolMap.has(name)) {
        logger?.warn(
          { server, tool: tool.name.slice(0, 100) },
          'MCP tool skipped: name unusable as a model function name',
        );
        continue;
      }
      const entry: CatalogTool = {
        name,
        server,
        originalName: tool.name,
        function: { name, description: tool.description, parameters: tool.inputSchema },
        annotations: { ...(tool.annotations ?? {}) },
      };
      tools.push(entry);
      toolMap.set(name, entry);
    }
    for (const prompt of catalog.prompts) {
      const name = mcpToolName(server, prompt.name);
      if (!MODEL_NAME.test(name) || promptMap.has(name)) {
        logger?.warn({ server, prompt: prompt.name.slice(0, 100) }, 'MCP prompt skipped: unusable name');
        continue;
      }
      const entry: CatalogPrompt = {
        name,
        originalName: prompt.name,
        server,
        description: prompt.description,
        arguments: prompt.arguments,
      };
      prompts.push(entry);
      promptMap.set(name, entry);
    }
  }
  const { resources, resourceMap, templatePrefixes } = buildResources(servers, logger);
  return Object.freeze({ tools, toolMap, resources, resourceMap, templatePrefixes, prompts, promptMap });
}

function buildResources(servers: ReadonlyMap<string, ServerCatalog>, logger?: Logger) {
  const concrete: CatalogResource[] = [];
  const templates: CatalogResource[] = [];
  const resourceMap = new Map<string, CatalogResource>();
  const templatePrefixes = new Map<string, CatalogResource>();
  for (const [server, catalog] of servers) {
    for (const resource of catalog.resources) {
      const entry: CatalogResource = { ...resource, server, isTemplate: false };
      const previous = resourceMap.get(resource.uri);
      if (previous)
        logger?.warn({ server, other: previous.server }, 'MCP resource URI served by two servers; the later wins');
      concrete.push(entry);
      resourceMap.set(resource.uri, entry);
    }
    for (const template of catalog.templates) {
      const entry: CatalogResource = { ...template, server, isTemplate: true };
      templates.push(entry);
      const brace = template.uri.indexOf('{');
      const prefix = brace === -1 ? template.uri : template.uri.slice(0, brace);
      if (prefix === '') continue;
      const existing = templatePrefixes.get(prefix);
      if (existing) {
        logger?.warn(
          { server, other: existing.server },
          'MCP resource templates share a prefix; the longer template wins',
        );
        if (template.uri.length <= existing.uri.length) continue;
      }
      templatePrefixes.set(prefix, entry);
    }
  }
  return { resources: [...concrete, ...templates], resourceMap, templatePrefixes };
}

/** Exact concrete URI first, then the longest matching template prefix. */
export function resolveResource(catalog: McpCatalog, uri: string): CatalogResource | undefined {
  const exact = catalog.resourceMap.get(uri);
  if (exact) return exact;
  let best: CatalogResource | undefined;
  let bestLength = -1;
  for (const [prefix, template] of catalog.templatePrefixes) {
    if (uri.startsWith(prefix) && prefix.length > bestLength) {
      best = template;
      bestLength = prefix.length;
    }
  }
  return best;
}

export function countResources(catalog: McpCatalog): number {
  return catalog.resources.length;
}
