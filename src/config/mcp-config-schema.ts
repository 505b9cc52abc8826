/** The MCP section of the configuration schema (config-schema.ts composes it); user input, so strict. */
import { z } from 'zod';

export const mcpServerConfigSchema = z.strictObject({
  type: z.enum(['stdio', 'http']).default('stdio'),
  command: z.string().optional(),
  args: z.array(z.string()).default([]),
  env: z.record(z.string(), z.string()).default({}),
  cwd: z.string().optional(),
  url: z.url().optional(),
  headers: z.record(z.string(), z.string()).default({}),
  timeout_seconds: z.number().positive().optional(),
  /** Run this stdio server inside the tool sandbox (absent = false; servers added at run time default to true). */
  sandbox: z.boolean().optional(),
  /** `oauth`: each user authorizes this HTTP server as themselves (per-user tokens; needs `gateway.public_url`). */
  auth: z.enum(['none', 'oauth']).optional(),
  /** Pre-registered OAuth client; without it the client registers itself (dynamic client registration). */
  client_id: z.string().min(1).optional(),
  client_secret: z.string().min(1).optional(),
  /** OAuth scopes to ask for (default: what the server advertises). */
  scopes: z.array(z.string().min(1)).optional(),
});

export const mcpConfigSchema = z
  .strictObject({
    servers: z.record(z.string(), mcpServerConfigSchema).default({}),
    config_file: z.string().optional(),
    /**
     * Servers added at run time (`sandpiper mcp add`, the admin API) run their command in the tool sandbox; when the
     * sandbox is unavailable they are refused unless this is true. Read from the config file only (ADR 0035).
     */
    allow_unsandboxed_runtime_servers: z.boolean().default(false),
    /** Key that encrypts OAuth tokens at rest (or SANDPIPER_MCP_TOKEN_KEY); needed by `auth = "oauth"` servers. */
    token_key: z.string().min(16).optional(),
    /** Earlier keys, still read (rotation: new key in token_key, old one here, then `sandpiper mcp auth rekey`). */
    token_key_previous: z.array(z.string().min(16)).default([]),
    /** How long a tool call waits for its caller to finish an OAuth authorization. */
    authorization_timeout_seconds: z.number().positive().max(3600).default(300),
    /** The MCP registry `sandpiper mcp search | install` ask. */
    registry_url: z.url().default('https://registry.modelcontextprotocol.io'),
  })
  .prefault({});

export type McpServerConfig = z.infer<typeof mcpServerConfigSchema>;

/** Each MCP server names what it needs (a command, a url; OAuth also gateway.public_url). */
export function checkMcpServers(
  mcp: z.infer<typeof mcpConfigSchema>,
  publicUrl: string | undefined,
  context: z.RefinementCtx,
): void {
  for (const [name, server] of Object.entries(mcp.servers)) {
    if (server.type === 'stdio' && !server.command) {
      context.addIssue({
        code: 'custom',
        path: ['mcp', 'servers', name, 'command'],
        message: 'stdio servers need a command',
      });
    }
    if (server.type === 'http' && !server.url) {
      context.addIssue({ code: 'custom', path: ['mcp', 'servers', name, 'url'], message: 'http servers need a url' });
    }
    if (server.auth === 'oauth' && server.url === undefined) {
      context.addIssue({
        code: 'custom',
        path: ['mcp', 'servers', name, 'auth'],
        message: 'auth = "oauth" needs an http server (url)',
      });
    }
    if (server.auth === 'oauth' && publicUrl === undefined) {
      context.addIssue({
        code: 'custom',
        path: ['gateway', 'public_url'],
        message: `MCP server "${name}" uses OAuth: set gateway.public_url (the callback is <public_url>/v1/oauth/callback)`,
      });
    }
  }
}
