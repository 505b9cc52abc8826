/** The configuration schema (docs/architecture.md §4), one zod slice per section; user input, so strict. */
import { z } from 'zod';

const nonEmpty = z.string().min(1);

export const gatewayConfigSchema = z
  .strictObject({
    http_host: nonEmpty.default('127.0.0.1'),
    http_port: z.number().int().min(0).max(65535).default(8091),
    advertise_url: z.url().optional(),
    /** How people reach this gateway from a browser; OAuth redirects to `<public_url>/v1/oauth/callback`. */
    public_url: z.url().optional(),
    // Default (resolved in load-config.ts): <config file folder>/data, or the platform state folder without a file.
    data_dir: nonEmpty.optional(),
    shutdown_timeout_s: z.number().positive().max(3600).default(20),
    notify_timeout_s: z.number().positive().max(600).default(30),
    /** A top-level DM after this many quiet hours starts a new DM conversation. */
    dm_idle_hours: z.number().positive().max(8760).default(24),
    /** How long a reply to a notification still reaches the notification's workstream. */
    notify_reply_days: z.number().positive().max(3650).default(7),
    /** Conversations (with their workspace folders) idle or closed this many days are deleted; 0 keeps them (ADR 0046). */
    retention_days: z.number().min(0).max(36500).default(0),
    /** Catch-up window after downtime and lossy reconnects (ADR 0015); 0 disables catch-up. */
    catch_up_hours: z.number().min(0).max(720).default(24),
    // A turn interrupted by a crash or restart is answered by resuming it once (false: only the note in the thread).
    resume_interrupted: z.boolean().default(true),
    /** Longest message (characters) a person may send to a workstream; longer ones are refused with a notice. */
    max_message_chars: z.number().int().positive().max(1_000_000).default(8192),
    /** Messages one platform user may send to workstreams per `user_rate_window_s` (more are refused with a notice). */
    user_rate_limit: z.number().int().positive().max(100_000).default(10),
    user_rate_window_s: z.number().positive().max(86_400).default(60),
    /** Largest attachment (MB) the gateway downloads from a linked user's message; larger ones get a notice. */
    max_attachment_mb: z.number().positive().max(1024).default(20),
  })
  .prefault({});

export const databaseConfigSchema = z
  .strictObject({
    url: z
      .string()
      .regex(/^(sqlite:.|postgres:\/\/|postgresql:\/\/)/, 'must be sqlite:<file>, postgres://… or postgresql://…')
      .optional(),
  })
  .prefault({});

export const authConfigSchema = z
  .strictObject({
    /** The notify secret (HS256) that Turnstone servers share: it signs notify tokens and nothing else. */
    jwt_secret: z.string().default(''),
    jwt_audience: nonEmpty.default('turnstone-channel'),
    /** The admin API's own secret (ADR 0035); unset = the admin API is off. Never equal to `jwt_secret`. */
    admin_secret: z.union([z.literal(''), z.string().min(32, 'must be at least 32 characters')]).default(''),
  })
  .prefault({});

/** `host:port` (`[v6]:port` for IPv6) of the admin API's own listener. */
const LISTEN_PATTERN = /^(\[[0-9A-Fa-f:.]+\]|[^\s:[\]]+):(\d{1,5})$/;

export const adminConfigSchema = z
  .strictObject({
    /** Where the admin API listens (only when `auth.admin_secret` is set); loopback unless said otherwise. */
    listen: z
      .string()
      .regex(LISTEN_PATTERN, 'must be host:port, e.g. 127.0.0.1:8191 or [::1]:8191')
      .refine((value) => Number(LISTEN_PATTERN.exec(value)?.[2]) <= 65535, 'port must be 0-65535')
      .default('127.0.0.1:8191'),
  })
  .prefault({});

export const modelConfigSchema = z.strictObject({
  provider: z.enum(['openai', 'anthropic']),
  base_url: z.url().optional(),
  api_key: z.string().optional(),
  model: nonEmpty,
  context_window: z.number().int().positive().default(128000),
  max_tokens: z.number().int().positive().default(8192),
  /** Unset = from the table of known model families (src/agent/providers/vision-models.ts). */
  supports_vision: z.boolean().optional(),
  temperature: z.number().min(0).max(2).optional(),
  first_token_timeout_s: z.number().positive().max(3600).default(60),
  stream_idle_timeout_s: z.number().positive().max(3600).default(60),
  /** Provider-native tool search (deferred loading): `auto` from the model table (src/agent/providers/native-tools.ts). */
  native_tool_search: z.enum(['auto', 'on', 'off']).default('auto'),
  /** Provider-native web search instead of the Tavily `web_search`: `auto` from the model table. */
  native_web_search: z.enum(['auto', 'on', 'off']).default('auto'),
  /** Another alias that answers when this one's provider is unreachable (connection, timeout, 5xx, 429 after the retries). */
  fallback: z.string().optional(),
}).superRefine((model, context) => {
  // Chat Completions has no deferred loading: asking for it would silently send every tool.
  if (model.provider === 'openai' && model.native_tool_search === 'on') {
    context.addIssue({ code: 'custom', path: ['native_tool_search'], message: 'provider "openai" (Chat Completions) has no native tool search; use "auto" or "off"' });
  }
});

export const agentConfigSchema = z
  .strictObject({
    default_model: z.string().optional(),
    workspace_dir: z.string().optional(),
    auto_approve: z.boolean().default(false),
    auto_approve_tools: z.array(nonEmpty).default([]),
    tool_timeout_seconds: z.number().positive().max(86400).default(120),
    max_active_workstreams: z.number().int().positive().default(200),
    idle_evict_minutes: z.number().positive().default(120),
    max_steps: z.number().int().positive().max(1000).default(50),
    sub_agent_max_steps: z.number().int().positive().max(1000).default(30),
    watch_tick_seconds: z.number().positive().max(3600).default(15),
    max_queued_messages: z.number().int().positive().max(10000).default(50),
    instructions: z.string().default(''),
  })
  .prefault({});

/** `pypi.org`, `pypi.org:443`, `*.github.com`, `*.github.com:443`, `10.0.0.5:8080`, `[2001:db8::1]:443`. */
const egressHostPattern = z
  .string()
  .regex(/^(\*\.)?([A-Za-z0-9-]+\.)*[A-Za-z0-9-]+(:\d{1,5})?$|^\[[0-9A-Fa-f:.]+\](:\d{1,5})?$/, 'must be host, host:port, *.domain or *.domain:port');
const egressHostPort = z
  .string()
  .regex(/^(([A-Za-z0-9-]+\.)*[A-Za-z0-9-]+|\[[0-9A-Fa-f:.]+\]):\d{1,5}$/, 'must be host:port (no wildcard)');

export const toolsConfigSchema = z
  .strictObject({
    search: z.enum(['auto', 'on', 'off']).default('auto'),
    search_threshold: z.number().int().nonnegative().default(20),
    search_max_results: z.number().int().positive().default(5),
    tavily_api_key: z.string().optional(),
    sandbox: z.enum(['auto', 'bwrap', 'off']).default('auto'),
    /** Network of sandboxed processes: "off" (none) or "ask" (only through the gateway's egress proxy, by approval). */
    network: z.enum(['off', 'ask']).default('off'),
    /** Destinations that pass the proxy without a card: `host`, `host:port`, `*.domain` or `*.domain:port`. */
    network_allow: z.array(egressHostPattern).default([]),
    /** Exact `host:port` destinations on private addresses the operator trusts (an internal mirror); still allowed or asked. */
    network_internal: z.array(egressHostPort).default([]),
    sandbox_memory_mb: z.number().int().positive().default(4096),
    sandbox_max_processes: z.number().int().positive().default(256),
    sandbox_max_file_mb: z.number().int().positive().default(1024),
    read_roots: z.array(nonEmpty).default([]),
  })
  .prefault({});

export const memoryConfigSchema = z
  .strictObject({
    max_content: z.number().int().positive().max(1_000_000).default(32768),
    relevance_k: z.number().int().nonnegative().max(50).default(5),
    fetch_limit: z.number().int().positive().max(10_000).default(50),
    /** Short notes suggesting the model save or search memories after a correction, a denial, a resume or a wrap-up. */
    nudges: z.boolean().default(true),
    /** Least time between two nudges of one kind in one workstream. */
    nudge_cooldown_s: z.number().min(0).max(86_400).default(300),
  })
  .prefault({});

const snowflake = z.string().regex(/^\d{5,25}$/, 'must be a Discord id (digits)');

export const discordConfigSchema = z
  .strictObject({
    token: z.string().optional(),
    guild_id: snowflake.optional(),
    channel_ids: z.array(snowflake).default([]),
    api_url: z.url().optional(),
    thread_participants: z.enum(['owner', 'linked']).default('owner'),
    /** Role ids whose members may decide any thread's approval cards (besides its owner and admins). */
    approver_roles: z.array(snowflake).default([]),
    /** discord.js's global REST budget; Discord grants large bots more than the default 50. */
    global_requests_per_second: z.number().int().positive().default(50),
    /** Default model alias of new threads per parent channel id (`/ask model:` and `/model` override it). */
    channel_models: z.record(snowflake, nonEmpty).default({}),
    /** Direct messages are conversations; false answers them with a hint instead. */
    dm: z.boolean().default(true),
    /** Total shards of the bot ('auto': the count Discord recommends in `GET /gateway/bot`). */
    shard_count: z.union([z.literal('auto'), z.number().int().positive().max(4096)]).default('auto'),
    /** Shard ids this instance always holds; empty = leased from the shared database (one holder per shard, ADR 0022). */
    shards: z.array(z.number().int().nonnegative().max(4095)).default([]),
  })
  .prefault({});

/**
 * Socket Mode needs both tokens; HTTP mode the signing secret and a bot token, or (installs in many workspaces) a
 * client id with its secret, a token key and `gateway.public_url` for the redirect URL.
 */
function checkSlack(slack: z.infer<typeof slackConfigSchema>, publicUrl: string | undefined, context: z.RefinementCtx): void {
  const issue = (key: string, message: string): void => context.addIssue({ code: 'custom', path: ['slack', key], message });
  if (slack.client_id !== undefined) {
    if (slack.mode !== 'http') issue('mode', 'slack.client_id (installs in many workspaces) needs slack.mode = "http"');
    if (!slack.client_secret) issue('client_secret', 'slack.client_id needs slack.client_secret (or SANDPIPER_SLACK_CLIENT_SECRET)');
    if (!slack.token_key) issue('token_key', 'slack.client_id needs slack.token_key (or SANDPIPER_SLACK_TOKEN_KEY) to encrypt the installs\' tokens');
    if (publicUrl === undefined) issue('client_id', 'slack.client_id needs gateway.public_url (the OAuth redirect URL is <public_url>/slack/oauth_redirect)');
  }
  if (slack.mode === 'http') {
    const hasToken = Boolean(slack.bot_token) || slack.client_id !== undefined;
    if (hasToken !== Boolean(slack.signing_secret)) {
      const missing = hasToken ? 'signing_secret' : 'bot_token';
      issue(missing, 'slack.signing_secret and slack.bot_token (or slack.client_id) are required when slack.mode = "http"');
    }
    return;
  }
  if (Boolean(slack.bot_token) !== Boolean(slack.app_token)) {
    const missing = slack.bot_token ? 'app_token' : 'bot_token';
    issue(missing, 'both slack.bot_token and slack.app_token are required to enable Slack');
  }
}

export const slackConfigSchema = z
  .strictObject({
    bot_token: z.string().optional(),
    app_token: z.string().optional(),
    /** How Slack delivers events: `socket` (Socket Mode, app_token) or `http` (POST /slack/events, signing_secret). */
    mode: z.enum(['socket', 'http']).default('socket'),
    /** The app's signing secret: every HTTP request from Slack is verified with it (mode = "http"). */
    signing_secret: z.string().optional(),
    channel_ids: z.array(nonEmpty).default([]),
    slash_command: z.string().regex(/^\/[a-z0-9_-]+$/, 'must look like /name').default('/sandpiper'),
    api_url: z.url().optional(),
    thread_participants: z.enum(['owner', 'linked']).default('owner'),
    /** User group ids (`S…`) whose members may decide any thread's approval cards (besides its owner and admins). */
    approver_groups: z.array(z.string().regex(/^S[A-Z0-9]+$/, 'must be a Slack user group id (S…)')).default([]),
    /** Default model alias of new threads per channel id (`--model` and `model` override it). */
    channel_models: z.record(nonEmpty, nonEmpty).default({}),
    /** Stream answers with chat.startStream/appendStream/stopStream when the workspace takes them (ADR 0019). */
    native_streaming: z.boolean().default(true),
    /** Direct messages are conversations; false answers them with a hint instead. */
    dm: z.boolean().default(true),
    /** Threads show Slack agent sessions (status, title, native Stop) when the app is declared as an agent. */
    agent_sessions: z.boolean().default(true),
    /** Installs in many workspaces (mode = "http"): the app's OAuth client id; its installs answer with their own tokens. */
    client_id: z.string().min(1).optional(),
    client_secret: z.string().min(1).optional(),
    /** Encrypts the installs' bot tokens at rest (AES-256-GCM); rotation: old key to token_key_previous, then `slack installs rekey`. */
    token_key: z.string().min(16).optional(),
    token_key_previous: z.array(z.string().min(16)).default([]),
  })
  .prefault({});

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

export const logConfigSchema = z
  .strictObject({
    level: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
    format: z.enum(['auto', 'json', 'pretty']).default('auto'),
  })
  .prefault({});

export const telemetryConfigSchema = z
  .strictObject({
    /** OTLP/HTTP collector base URL (traces go to `<endpoint>/v1/traces`); unset = no tracing. */
    otlp_endpoint: z.string().regex(/^https?:\/\/[^\s]+$/i, 'must be an http:// or https:// URL').optional(),
  })
  .prefault({});

/** Token budgets per UTC day (input plus output tokens of a user's conversations); 0 = none. */
export const budgetsConfigSchema = z
  .strictObject({
    user_daily_tokens: z.number().int().min(0).default(0),
    /** Per-username budget instead of `user_daily_tokens` (0 = none for that user). */
    users: z.record(nonEmpty, z.number().int().min(0)).default({}),
    /** Tokens of the conversations in one channel (`<platform>:<channel id>`) per UTC day; 0 = none. */
    channel_daily_tokens: z.number().int().min(0).default(0),
    /** Per-channel budget instead of `channel_daily_tokens` (0 = none for that channel). */
    channels: z.record(z.string().regex(/^[a-z]+:.+$/, 'channel must be <platform>:<channel id>'), z.number().int().min(0)).default({}),
  })
  .prefault({});

/** Several instances on one PostgreSQL (ADR 0021); ignored on SQLite, which is single-instance (ADR 0023). */
export const clusterConfigSchema = z
  .strictObject({
    /** How often an instance renews its leases, polls handed-off work and looks for expired leases to take over. */
    heartbeat_s: z.number().positive().max(300).default(5),
    /** A lease not renewed for this long is taken over by another instance (failover time ≈ this + one heartbeat). */
    lease_ttl_s: z.number().positive().max(3600).optional(),
  })
  .prefault({})
  // Derived, not a second knob to keep in step: three heartbeats unless set.
  .transform((cluster) => ({ ...cluster, lease_ttl_s: cluster.lease_ttl_s ?? 3 * cluster.heartbeat_s }));

export const configSchema = z
  .strictObject({
    gateway: gatewayConfigSchema,
    database: databaseConfigSchema,
    auth: authConfigSchema,
    admin: adminConfigSchema,
    models: z.record(z.string().regex(/^[A-Za-z0-9_.-]+$/, 'alias must be [A-Za-z0-9_.-]'), modelConfigSchema).default({}),
    agent: agentConfigSchema,
    budgets: budgetsConfigSchema,
    tools: toolsConfigSchema,
    memory: memoryConfigSchema,
    discord: discordConfigSchema,
    slack: slackConfigSchema,
    mcp: mcpConfigSchema,
    log: logConfigSchema,
    telemetry: telemetryConfigSchema,
    cluster: clusterConfigSchema,
  })
  .superRefine((config, context) => {
    checkScaleOut(config, context);
    if (config.auth.admin_secret !== '' && config.auth.admin_secret === config.auth.jwt_secret) {
      context.addIssue({ code: 'custom', path: ['auth', 'admin_secret'], message: 'must differ from auth.jwt_secret (the notify secret must never open the admin API)' });
    }
    checkSlack(config.slack, config.gateway.public_url, context);
    const aliases = Object.keys(config.models);
    if (config.agent.default_model !== undefined && !aliases.includes(config.agent.default_model)) {
      context.addIssue({ code: 'custom', path: ['agent', 'default_model'], message: `no model alias "${config.agent.default_model}" in [models]` });
    }
    for (const platform of ['discord', 'slack'] as const) {
      for (const [channel, alias] of Object.entries(config[platform].channel_models)) {
        if (aliases.includes(alias)) continue;
        context.addIssue({ code: 'custom', path: [platform, 'channel_models', channel], message: `no model alias "${alias}" in [models]` });
      }
    }
    checkMcpServers(config, context);
    checkFallbacks(config.models, context);
  });

/** A fallback names another configured alias. */
function checkFallbacks(models: Record<string, { fallback?: string | undefined }>, context: z.RefinementCtx): void {
  for (const [alias, model] of Object.entries(models)) {
    if (model.fallback === undefined) continue;
    if (model.fallback === alias || models[model.fallback] === undefined) {
      context.addIssue({ code: 'custom', path: ['models', alias, 'fallback'], message: `must name another alias in [models], not "${model.fallback}"` });
    }
  }
}

/** Lease timings that survive a missed renewal, and fixed shard ids within the shard count. */
function checkScaleOut(config: Pick<z.infer<typeof configSchema>, 'cluster' | 'discord'>, context: z.RefinementCtx): void {
  if (config.cluster.lease_ttl_s < 2 * config.cluster.heartbeat_s) {
    context.addIssue({ code: 'custom', path: ['cluster', 'lease_ttl_s'], message: 'must be at least twice cluster.heartbeat_s (a lease survives one missed renewal)' });
  }
  const { shard_count: count, shards } = config.discord;
  if (typeof count === 'number' && shards.some((shard) => shard >= count)) {
    context.addIssue({ code: 'custom', path: ['discord', 'shards'], message: `shard ids must be below discord.shard_count (${count})` });
  }
}

export type RawConfig = z.infer<typeof configSchema>;
export type ModelConfig = z.infer<typeof modelConfigSchema>;
export type McpServerConfig = z.infer<typeof mcpServerConfigSchema>;

/** Each MCP server names what it needs (a command, a url; OAuth also gateway.public_url). */
function checkMcpServers(config: Pick<z.infer<typeof configSchema>, 'mcp' | 'gateway'>, context: z.RefinementCtx): void {
  for (const [name, server] of Object.entries(config.mcp.servers)) {
    if (server.type === 'stdio' && !server.command) {
      context.addIssue({ code: 'custom', path: ['mcp', 'servers', name, 'command'], message: 'stdio servers need a command' });
    }
    if (server.type === 'http' && !server.url) {
      context.addIssue({ code: 'custom', path: ['mcp', 'servers', name, 'url'], message: 'http servers need a url' });
    }
    if (server.auth === 'oauth' && server.url === undefined) {
      context.addIssue({ code: 'custom', path: ['mcp', 'servers', name, 'auth'], message: 'auth = "oauth" needs an http server (url)' });
    }
    if (server.auth === 'oauth' && config.gateway.public_url === undefined) {
      context.addIssue({ code: 'custom', path: ['gateway', 'public_url'], message: `MCP server "${name}" uses OAuth: set gateway.public_url (the callback is <public_url>/v1/oauth/callback)` });
    }
  }
}
