/** Composition of the MCP manager: merges TOML, JSON-file and database server definitions and builds the manager. */
import { createMcpManager, type McpManager } from './agent/mcp/mcp-manager.js';
import { mergeMcpServerConfigs, readMcpConfigFile } from './agent/mcp/merge-mcp-server-configs.js';
import type { Config } from './config/index.js';
import { processEnvironment } from './shared/environment.js';
import type { Logger } from './shared/logger.js';
import type { Stores } from './storage/stores.js';

/** Builds the manager (not yet connected); unreadable config files are logged and skipped. */
export async function createConfiguredMcpManager(config: Config, stores: Stores, logger: Logger): Promise<McpManager> {
  const log = logger.child({ component: 'mcp' });
  let file: Record<string, unknown> | undefined;
  if (config.mcp.config_file) {
    const read = await readMcpConfigFile(config.mcp.config_file);
    if (read.ok) file = read.value;
    else log.error({ file: config.mcp.config_file, reason: read.error }, 'MCP config file skipped');
  }
  const merged = mergeMcpServerConfigs({
    toml: config.mcp.servers,
    ...(file === undefined ? {} : { file }),
    database: await stores.mcpServers.list({ enabledOnly: true }),
    logger: log,
  });
  return createMcpManager({
    servers: merged.servers,
    parentEnv: processEnvironment(),
    logger: log,
    promptTemplates: stores.promptTemplates,
  });
}
