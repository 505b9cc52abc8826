/** Composition of tool containment: detects the sandbox once and lists the gateway paths no tool may reach. */
import path from 'node:path';
import { detectSandbox, SANDBOX_FIX } from './agent/sandbox/detect-sandbox.js';
import { createSandbox, homeCredentialPaths } from './agent/sandbox/sandbox.js';
import { createToolAccess, type ToolContainment } from './agent/tools/index.js';
import type { Config } from './config/index.js';
import { ConfigError } from './shared/errors.js';
import type { Logger } from './shared/logger.js';

/** The SQLite database file of a `sqlite:<file>` URL (none for PostgreSQL or `:memory:`). */
export function sqliteFile(url: string): string | undefined {
  if (!url.startsWith('sqlite:')) return undefined;
  const file = url.slice('sqlite:'.length);
  return file === '' || file === ':memory:' ? undefined : path.resolve(file);
}

/**
 * Detects the sandbox (`tools.sandbox`), refusing to start when `bwrap` was asked for and does not work, and logging
 * an error with the fix when `auto` finds none (the process tools are then refused; unconfined only by `"off"`). The
 * config file, data_dir, database and workspace_dir are protected paths.
 */
export async function prepareContainment(
  config: Config,
  logger: Logger,
  options: { signal?: AbortSignal; bwrapCommand?: string; httpPort?: number } = {},
): Promise<ToolContainment> {
  const { httpPort, ...probe } = options;
  const status = await detectSandbox({ mode: config.tools.sandbox, ...probe });
  if (status.kind === 'unavailable' && config.tools.sandbox === 'bwrap') {
    throw new ConfigError([`tools.sandbox: "bwrap" was asked for but ${status.reason}; ${SANDBOX_FIX}`]);
  }
  if (status.kind === 'unavailable') {
    logger.error(
      { sandbox: 'unavailable', reason: status.reason },
      `no sandbox: ${status.reason}; bash, math, man, watch commands and sandboxed MCP servers are refused until you ${SANDBOX_FIX}`,
    );
  }
  if (status.kind === 'off') {
    logger.warn(
      { sandbox: 'off' },
      'tools.sandbox = "off": bash, math, man, search and watch commands run unconfined, with the gateway user\'s full access',
    );
  }
  if (status.kind === 'bwrap' && status.runsAsRoot) {
    logger.warn(
      { sandbox: 'bwrap' },
      'the gateway runs as root: the kernel does not apply the sandbox process limit to uid 0 (run it as an unprivileged user)',
    );
  }
  const base = config.source.file === undefined ? process.cwd() : path.dirname(config.source.file);
  const databaseFile = sqliteFile(config.database.url);
  const trees = [config.gateway.data_dir, config.agent.workspace_dir];
  const access = createToolAccess({
    readRoots: config.tools.read_roots.map((root) => path.resolve(base, root)),
    ...(config.source.file === undefined ? {} : { configFile: config.source.file }),
    ...(databaseFile === undefined ? {} : { databaseFile }),
    trees,
  });
  const sandbox = createSandbox(status, {
    network: config.tools.network,
    egress: {
      allow: config.tools.network_allow,
      internal: config.tools.network_internal,
      gateway: { host: config.gateway.http_host, port: httpPort ?? config.gateway.http_port },
    },
    hidden: [...access.protectedFiles, ...access.protectedTrees, ...homeCredentialPaths()],
    limits: {
      cpuSeconds: config.agent.tool_timeout_seconds + 1,
      memoryBytes: config.tools.sandbox_memory_mb * 1024 * 1024,
      processes: config.tools.sandbox_max_processes,
      fileSizeBytes: config.tools.sandbox_max_file_mb * 1024 * 1024,
    },
  });
  return { access, sandbox };
}
