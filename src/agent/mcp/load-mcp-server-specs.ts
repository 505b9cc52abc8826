/** Gathers MCP server definitions from all three sources (TOML slice, `mcp.config_file`, `mcp_servers`) and merges them. */
import { isAbsolute, resolve } from 'node:path';
import type { McpServerConfig } from '../../config/config-schema.js';
import type { Logger } from '../../shared/logger.js';
import type { McpServerRow, McpServerStore } from '../../storage/mcp-server-store.js';
import { mergeMcpServerConfigs, readMcpConfigFile, type MergedMcpServers } from './merge-mcp-server-configs.js';

export interface LoadMcpServerSpecsOptions {
  /** `config.mcp`. */
  mcp: {
    servers: Readonly<Record<string, McpServerConfig>>;
    config_file?: string | undefined;
    allow_unsandboxed_runtime_servers?: boolean;
  };
  /** Base for a relative `config_file` (the config file's directory or the working directory). */
  baseDir: string;
  store?: McpServerStore;
  logger?: Logger;
  signal?: AbortSignal;
}

/**
 * Never throws for a bad source: an unreadable JSON file or a failing `mcp_servers` query is logged and treated as
 * empty, so the other sources still load. Used at start-up and by the reload path before `manager.reconcile()`.
 */
export async function loadMcpServerSpecs(options: LoadMcpServerSpecsOptions): Promise<MergedMcpServers> {
  const logger = options.logger;
  let file: Record<string, unknown> | undefined;
  const configFile = options.mcp.config_file;
  if (configFile !== undefined && configFile !== '') {
    const path = isAbsolute(configFile) ? configFile : resolve(options.baseDir, configFile);
    const parsed = await readMcpConfigFile(path, options.signal);
    if (parsed.ok) file = parsed.value;
    else logger?.warn({ reason: parsed.error }, 'mcp.config_file ignored');
  }
  let rows: McpServerRow[];
  try {
    rows = options.store ? await options.store.list({ enabledOnly: true }) : [];
  } catch (error) {
    logger?.warn(
      { err: error instanceof Error ? error.message : String(error) },
      'mcp_servers could not be read; using configuration files only',
    );
    rows = [];
  }
  return mergeMcpServerConfigs({
    toml: options.mcp.servers,
    ...(file ? { file } : {}),
    database: rows,
    allowUnsandboxedRuntime: options.mcp.allow_unsandboxed_runtime_servers === true,
    ...(logger ? { logger } : {}),
  });
}
