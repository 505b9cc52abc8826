/** Composition of the MCP manager: merges TOML, JSON-file and database server definitions and builds the manager. */
import path from 'node:path';
import { loadMcpServerSpecs } from './agent/mcp/load-mcp-server-specs.js';
import { createMcpManager, type McpManager, type McpManagerOptions } from './agent/mcp/mcp-manager.js';
import type { Sandbox } from './agent/sandbox/sandbox.js';
import { mcpBuiltinSchemasFrom } from './agent/mcp/mcp-tool-source.js';
import type { ToolDefinition } from './agent/tools/tool.js';
import type { Config } from './config/index.js';
import type { McpReloadAnswer } from './gateway/http/routes/admin-mcp.js';
import { processEnvironment } from './shared/environment.js';
import type { Logger } from './shared/logger.js';
import type { Stores } from './storage/stores.js';

function mcpSources(config: Config, stores: Stores, logger: Logger): Parameters<typeof loadMcpServerSpecs>[0] {
  return {
    mcp: config.mcp,
    baseDir: config.source.file ? path.dirname(config.source.file) : process.cwd(),
    store: stores.mcpServers,
    logger,
  };
}

/** `mcp reload`: re-reads the three sources and reconciles the running manager with them. */
export async function reloadMcpServers(
  config: Config,
  stores: Stores,
  mcp: McpManager,
  logger: Logger,
): Promise<McpReloadAnswer> {
  const log = logger.child({ component: 'mcp' });
  const merged = await loadMcpServerSpecs(mcpSources(config, stores, log));
  const result = await mcp.reconcile(merged.servers);
  return { ...result, rejected: merged.rejected.map((entry) => ({ name: entry.name, reason: entry.reason })) };
}

/** Builds the manager (not yet connected); an unreadable source is logged and treated as empty. */
export async function createConfiguredMcpManager(
  config: Config,
  stores: Stores,
  logger: Logger,
  toolDefinitions: readonly ToolDefinition[],
  sandbox?: Sandbox,
): Promise<McpManager> {
  const log = logger.child({ component: 'mcp' });
  const merged = await loadMcpServerSpecs(mcpSources(config, stores, log));
  return createMcpManager({
    servers: merged.servers,
    parentEnv: processEnvironment(),
    logger: log,
    promptTemplates: stores.promptTemplates,
    builtinSchemas: mcpBuiltinSchemasFrom(toolDefinitions),
    // Servers with `sandbox = true` get a writable folder of their own under data_dir when they set no cwd.
    ...(sandbox === undefined
      ? {}
      : { sandbox: { sandbox, workDir: (name: string) => path.join(config.gateway.data_dir, 'mcp', name) } }),
    ...mcpOAuthOptions(
      config,
      stores,
      log,
      merged.servers.some((spec) => spec.oauth !== undefined),
    ),
  });
}

/**
 * Per-user OAuth (docs/design/mcp-oauth.md) needs gateway.public_url and mcp.token_key; without them OAuth servers'
 * calls fail with a message naming what is missing. Calls act for the conversation's owner.
 */
function mcpOAuthOptions(
  config: Config,
  stores: Stores,
  logger: Logger,
  isUsed: boolean,
): Pick<McpManagerOptions, 'oauth'> {
  const publicUrl = config.gateway.public_url;
  const tokenKey = config.mcp.token_key;
  if (publicUrl === undefined || tokenKey === undefined) {
    if (isUsed)
      logger.error(
        'MCP servers with auth = "oauth" need gateway.public_url and mcp.token_key (or SANDPIPER_MCP_TOKEN_KEY); their calls will fail',
      );
    return {};
  }
  return {
    oauth: {
      credentials: stores.mcpCredentials,
      states: stores.mcpOAuthStates,
      tokenKey,
      previousTokenKeys: config.mcp.token_key_previous,
      publicUrl,
      authorizationTimeoutMs: config.mcp.authorization_timeout_seconds * 1000,
      callerOf: async (workstreamId) => {
        const workstream = await stores.workstreams.get(workstreamId);
        return workstream ? { userId: workstream.userId, conversationId: workstreamId } : undefined;
      },
    },
  };
}
