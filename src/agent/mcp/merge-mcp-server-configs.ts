/** Merges MCP server definitions from TOML, the `mcpServers` JSON file and `mcp_servers` rows (database > file > TOML). */
import { readFile } from 'node:fs/promises';
import type { McpServerConfig } from '../../config/config-schema.js';
import type { Logger } from '../../shared/logger.js';
import { isPlainObject, safeParseJson } from '../../shared/json.js';
import { err, ok, type Result } from '../../shared/result.js';
import type { McpServerRow } from '../../storage/mcp-server-store.js';
import { invalidServerNameReason, type McpServerSource, type McpServerSpec } from './mcp-server-spec.js';

export interface MergeMcpServerConfigsInput {
  /** `config.mcp.servers`. */
  toml?: Readonly<Record<string, McpServerConfig>>;
  /** The parsed `mcpServers` object of `mcp.config_file` (see readMcpConfigFile). */
  file?: Readonly<Record<string, unknown>>;
  /** `mcp_servers` rows; disabled rows are ignored. */
  database?: readonly McpServerRow[];
  /**
   * `mcp.allow_unsandboxed_runtime_servers`: database (run-time) stdio servers always ask for the sandbox; with this
   * they start unsandboxed where there is none instead of being refused.
   */
  allowUnsandboxedRuntime?: boolean;
  logger?: Logger;
}

export interface RejectedMcpServer {
  name: string;
  source: McpServerSource;
  reason: string;
}

export interface MergedMcpServers {
  /** Valid servers by name, in name order. */
  servers: McpServerSpec[];
  /** Entries that were skipped (bad name, missing command/url); the others still connect. */
  rejected: RejectedMcpServer[];
}

/** Merges by name: a database row overrides a file entry, which overrides a TOML entry. */
export function mergeMcpServerConfigs(input: MergeMcpServerConfigsInput): MergedMcpServers {
  const byName = new Map<string, McpServerSpec>();
  const rejected: RejectedMcpServer[] = [];
  const add = (name: string, source: McpServerSource, parsed: Result<McpServerSpec>): void => {
    const nameProblem = invalidServerNameReason(name);
    const problem = nameProblem ?? (parsed.ok ? undefined : parsed.error);
    if (problem !== undefined || !parsed.ok) {
      rejected.push({ name, source, reason: problem ?? 'invalid' });
      input.logger?.error({ server: name, source, reason: problem }, 'MCP server definition rejected');
      return;
    }
    const previous = byName.get(name);
    if (previous)
      input.logger?.info({ server: name, source, overrides: previous.source }, 'MCP server definition overridden');
    byName.set(name, parsed.value);
  };
  for (const [name, config] of Object.entries(input.toml ?? {})) add(name, 'toml', specFromToml(name, config));
  for (const [name, entry] of Object.entries(input.file ?? {})) add(name, 'file', specFromJsonEntry(name, entry));
  for (const row of input.database ?? []) {
    if (row.enabled) add(row.name, 'database', specFromRow(row, input.allowUnsandboxedRuntime === true));
  }
  const servers = [...byName.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (const server of servers) {
    input.logger?.info(
      { server: server.name, source: server.source, transport: server.transport },
      'MCP server configured',
    );
  }
  return { servers, rejected };
}

/** Reads a standard `{"mcpServers": {...}}` file; other top-level keys are ignored. */
export async function readMcpConfigFile(path: string, signal?: AbortSignal): Promise<Result<Record<string, unknown>>> {
  let text: string;
  try {
    text = await readFile(path, { encoding: 'utf8', ...(signal ? { signal } : {}) });
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    return err(code === 'ENOENT' ? 'MCP config file not found' : 'MCP config file could not be read');
  }
  const parsed = safeParseJson(text);
  if (!parsed.ok) return err('MCP config file is not valid JSON');
  if (!isPlainObject(parsed.value)) return err('MCP config file must hold a JSON object');
  const servers = parsed.value['mcpServers'];
  if (servers === undefined) return ok({});
  if (!isPlainObject(servers)) return err('"mcpServers" must be an object');
  return ok(servers);
}

function specFromToml(name: string, config: McpServerConfig): Result<McpServerSpec> {
  const isHttp = config.type === 'http' || config.url !== undefined;
  return finish({
    name,
    source: 'toml',
    transport: isHttp ? 'http' : 'stdio',
    command: config.command ?? '',
    args: [...config.args],
    env: { ...config.env },
    ...(config.cwd !== undefined ? { cwd: config.cwd } : {}),
    url: config.url ?? '',
    headers: { ...config.headers },
    ...(config.timeout_seconds !== undefined ? { timeoutMs: config.timeout_seconds * 1000 } : {}),
    ...(config.sandbox === true ? { sandbox: true } : {}),
    ...(config.auth === 'oauth' ? { oauth: oauthSettings(config) } : {}),
  });
}

function specFromJsonEntry(name: string, entry: unknown): Result<McpServerSpec> {
  if (!isPlainObject(entry)) return err('entry must be an object');
  const type = entry['type'];
  const isHttp = type === 'http' || type === 'streamable-http' || typeof entry['url'] === 'string';
  const args = stringArray(entry['args']);
  const env = stringRecord(entry['env']);
  const headers = stringRecord(entry['headers']);
  if (!args.ok) return err(`"args" ${args.error}`);
  if (!env.ok) return err(`"env" ${env.error}`);
  if (!headers.ok) return err(`"headers" ${headers.error}`);
  const cwd = entry['cwd'];
  const timeout = entry['timeout_seconds'] ?? entry['timeout'];
  return finish({
    name,
    source: 'file',
    transport: isHttp ? 'http' : 'stdio',
    command: typeof entry['command'] === 'string' ? entry['command'] : '',
    args: args.value,
    env: env.value,
    ...(typeof cwd === 'string' ? { cwd } : {}),
    url: typeof entry['url'] === 'string' ? entry['url'] : '',
    headers: headers.value,
    ...(typeof timeout === 'number' && timeout > 0 ? { timeoutMs: timeout * 1000 } : {}),
    ...(entry['sandbox'] === true ? { sandbox: true } : {}),
  });
}

/** A server added at run time (API or CLI): a stdio command runs in the tool sandbox (ADR 0035). */
function specFromRow(row: McpServerRow, allowUnsandboxed: boolean): Result<McpServerSpec> {
  const isStdio = row.transport === 'stdio';
  return finish({
    name: row.name,
    source: 'database',
    transport: row.transport === 'stdio' ? 'stdio' : 'http',
    command: row.command,
    args: [...row.args],
    env: { ...row.env },
    url: row.url,
    headers: { ...row.headers },
    ...(isStdio ? { sandbox: true } : {}),
    ...(isStdio && allowUnsandboxed ? { unsandboxedFallback: true } : {}),
  });
}

function finish(spec: McpServerSpec): Result<McpServerSpec> {
  if (spec.transport === 'stdio' && spec.command.trim() === '') return err('stdio server needs a command');
  if (spec.transport === 'http') {
    if (spec.url === '') return err('http server needs a url');
    if (!/^https?:\/\//i.test(spec.url)) return err('http server url must start with http:// or https://');
  }
  return ok(spec);
}

function stringArray(value: unknown): Result<string[]> {
  if (value === undefined || value === null) return ok([]);
  if (!Array.isArray(value) || !value.every((item) => typeof item === 'string'))
    return err('must be an array of strings');
  return ok(value as string[]);
}

function stringRecord(value: unknown): Result<Record<string, string>> {
  if (value === undefined || value === null) return ok({});
  if (!isPlainObject(value)) return err('must be an object');
  const out: Record<string, string> = {};
  for (const [key, item] of Object.entries(value)) {
    if (typeof item !== 'string') return err('values must be strings');
    out[key] = item;
  }
  return ok(out);
}

function oauthSettings(config: McpServerConfig): NonNullable<McpServerSpec['oauth']> {
  return {
    ...(config.client_id !== undefined ? { clientId: config.client_id } : {}),
    ...(config.client_secret !== undefined ? { clientSecret: config.client_secret } : {}),
    scopes: [...(config.scopes ?? [])],
  };
}
