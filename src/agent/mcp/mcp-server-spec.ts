/** The normalized description of one MCP server, whatever source (TOML, JSON file, database) defined it. */

export type McpServerSource = 'toml' | 'file' | 'database';

export type McpTransportKind = 'stdio' | 'http';

export interface McpServerSpec {
  name: string;
  source: McpServerSource;
  transport: McpTransportKind;
  /** stdio executable (empty for HTTP). */
  command: string;
  args: string[];
  /** Extra child environment, merged over the scrubbed parent environment. */
  env: Record<string, string>;
  cwd?: string;
  /** Streamable HTTP endpoint (empty for stdio). */
  url: string;
  headers: Record<string, string>;
  /** Per-server call timeout; the tool context's timeout applies when absent. */
  timeoutMs?: number;
  /** stdio only: run the server inside the tool sandbox; it refuses to start when there is none. */
  sandbox?: boolean;
  /**
   * stdio only, with `sandbox`: when no sandbox is available, start it unsandboxed instead of refusing (servers added
   * at run time when the config file sets `mcp.allow_unsandboxed_runtime_servers`).
   */
  unsandboxedFallback?: boolean;
  /** HTTP only: each user authorizes the server with OAuth; calls carry the caller's token (mcp-oauth.md). */
  oauth?: McpOAuthSettings;
}

export interface McpOAuthSettings {
  /** Pre-registered client; absent = dynamic client registration. */
  clientId?: string;
  clientSecret?: string;
  scopes: string[];
}

const NAME_PATTERN = /^[A-Za-z0-9_-]+$/;

/** Why a server name is unusable, or undefined when it is fine. `__` is the tool-name delimiter. */
export function invalidServerNameReason(name: string): string | undefined {
  if (name.length === 0) return 'server name is empty';
  if (name.length > 64) return 'server name is longer than 64 characters';
  if (!NAME_PATTERN.test(name)) return 'server name may only contain letters, digits, "_" and "-"';
  if (name.includes('__')) return 'server name must not contain "__" (reserved tool-name delimiter)';
  return undefined;
}

/** A stable fingerprint of everything that affects the connection; reconcile reconnects when it changes. */
export function specFingerprint(spec: McpServerSpec): string {
  const sorted = (record: Record<string, string>): [string, string][] =>
    Object.entries(record).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return JSON.stringify([
    spec.transport,
    spec.command,
    spec.args,
    sorted(spec.env),
    spec.cwd ?? '',
    spec.url,
    sorted(spec.headers),
    spec.timeoutMs ?? 0,
    spec.sandbox === true,
    spec.unsandboxedFallback === true,
    spec.oauth ?? null,
  ]);
}
