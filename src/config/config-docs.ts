/**
 * What each configuration key means and which tier it belongs to, for the generated reference (docs/configuration.md)
 * and config.example.toml (`node --import tsx scripts/config-reference.ts`). The keys themselves come from the schema:
 * a key missing here is still listed, as advanced, with the schema's `.describe()` text if it has one.
 * Tiers: `required` (a platform token, a model), `common` (shown in config.example.toml; required + common ≤ 40) and
 * `advanced` (tuning knobs, only in the reference).
 */
export type ConfigTier = 'required' | 'common' | 'advanced';

export interface ConfigKeyDoc {
  tier: ConfigTier;
  doc: string;
  /** A value shown (commented out) in config.example.toml for a key without a default. */
  example?: string;
}

const required = (doc: string, example?: string): ConfigKeyDoc => ({ tier: 'required', doc, ...(example === undefined ? {} : { example }) });
const common = (doc: string, example?: string): ConfigKeyDoc => ({ tier: 'common', doc, ...(example === undefined ? {} : { example }) });
const advanced = (doc: string): ConfigKeyDoc => ({ tier: 'advanced', doc });

/** By dotted key; `<alias>` and `<name>` stand for a table's own name (`[models.main]`, `[mcp.servers.files]`). */
export const CONFIG_DOCS: Readonly<Record<string, ConfigKeyDoc>> = {
  'gateway.http_host': common('bind address of the HTTP server (notify, health, metrics, admin)'),
  'gateway.http_port': common('HTTP port; 0 = any free port, the bound port is logged'),
  'gateway.advertise_url': advanced('URL written to the services table for other instances; default: the bound URL'),
  'gateway.public_url': advanced('how people reach this gateway from a browser (OAuth callback: `<public_url>/v1/oauth/callback`)'),
  'gateway.data_dir': common(
    'SQLite file and workspaces; relative to the config file. Default: `data` next to the config file; without one, `$XDG_STATE_HOME/sandpiper` or `~/.local/state/sandpiper`, never the current folder',
    '"./data"',
  ),
  'gateway.shutdown_timeout_s': advanced('on SIGTERM/SIGINT, seconds to finish or park running turns before exiting anyway'),
  'gateway.notify_timeout_s': advanced('per-target platform call of `POST /v1/api/notify`; an undelivered target answers "timeout"'),
  'gateway.dm_idle_hours': advanced('a top-level direct message after this many quiet hours starts a new DM conversation'),
  'gateway.notify_reply_days': advanced('a reply to a notification (sent with `ws_id`) reaches its workstream for this many days; older delivery records are deleted hourly'),
  'gateway.retention_days': advanced('conversations idle or closed this many days are deleted hourly with their history, approvals and workspace folders (0 = kept forever)'),
  'gateway.catch_up_hours': advanced('after downtime or a lossy reconnect, answer messages written meanwhile, this far back (0 = off)'),
  'gateway.resume_interrupted': advanced('a turn cut off by a crash or restart is resumed once; false = only a note in the thread'),
  'gateway.max_message_chars': advanced('longest message a person may send to a conversation; longer ones get a private notice'),
  'gateway.user_rate_limit': common('messages one platform user may send to conversations per window; more get one notice'),
  'gateway.user_rate_window_s': advanced('the sliding window of `gateway.user_rate_limit`, in seconds'),
  'gateway.max_attachment_mb': advanced("largest file or image downloaded from a user's message; larger ones get a notice"),
  'database.url': common(
    'default: `sqlite:<data_dir>/sandpiper.db` (a relative file is relative to the config file); or `postgres://user:pass@host/db`',
    '"sqlite:./data/sandpiper.db"',
  ),
  'auth.jwt_secret': common('HS256 secret for `POST /v1/api/notify`; empty = notify answers 401'),
  'auth.jwt_audience': advanced('audience required on notify tokens'),
  'auth.admin_secret': common(
    "the admin API's own secret (at least 32 characters, never equal to jwt_secret); empty = the admin API is off. The CLI mints five-minute admin tokens from it (ADR 0035)",
  ),
  'admin.listen': advanced("the admin API's own listener (loopback; another address exposes it to that network)"),
  'models.<alias>.provider': required('"openai" (any OpenAI-compatible server) or "anthropic"', '"openai"'),
  'models.<alias>.base_url': common("default: the provider's API; OpenAI-compatible URLs include /v1", '"http://127.0.0.1:8000/v1"'),
  'models.<alias>.api_key': common('default: OPENAI_API_KEY or ANTHROPIC_API_KEY, by provider', '"sk-..."'),
  'models.<alias>.model': required('model name sent to the API', '"gpt-4.1-mini"'),
  'models.<alias>.context_window': common('tokens; older turns are compacted near this limit'),
  'models.<alias>.max_tokens': advanced('max output tokens per model call'),
  'models.<alias>.supports_vision': common(
    'send images to the model; default: known vision families (gpt-4o, gpt-4.1, gpt-5, o3, o4, claude-3+, gemini, llava, qwen-vl, ...)',
    'true',
  ),
  'models.<alias>.temperature': advanced("sampling temperature; unset = the provider's default"),
  'models.<alias>.first_token_timeout_s': advanced('give a call up when no stream data arrives this long after the request; retried'),
  'models.<alias>.stream_idle_timeout_s': advanced('give a call up when its stream goes quiet this long; retried if nothing was streamed yet'),
  'models.<alias>.native_tool_search': advanced(
    'provider-side tool search: MCP tools sent with defer_loading and the provider loads them on demand; "auto" = Claude Opus/Sonnet 4.5 and later; "off" = the built-in BM25 tool_search (OpenAI: never)',
  ),
  'models.<alias>.native_web_search': advanced(
    'the provider searches the web instead of the Tavily web_search (no approval card): "auto" = Claude 3.5+ and the OpenAI search models (gpt-5-search-api, gpt-4o-search-preview)',
  ),
  'models.<alias>.fallback': advanced(
    'another alias that answers when this model is unreachable (refused connection, timeout, HTTP 5xx or 429 after the retries); never on other 4xx errors; the thread gets a short note',
  ),
  'agent.default_model': common('model alias for new workstreams; default: the first alias', '"main"'),
  'agent.workspace_dir': advanced('default: `<data_dir>/workspaces`; each workstream works in its own subfolder'),
  'agent.auto_approve': common('approve every tool call without asking'),
  'agent.auto_approve_tools': common('approval labels approved without asking; entries with * are globs, e.g. ["read_*", "mcp__docs__*"]'),
  'agent.tool_timeout_seconds': advanced('per tool call'),
  'agent.max_active_workstreams': advanced('idle workstreams beyond this are evicted from memory (history stays in the database)'),
  'budgets.user_daily_tokens': advanced(
    'tokens (input plus output) each user\'s conversations may use per UTC day; past it a new turn is refused with a note naming when it resets, admins included (0 = no budget)',
  ),
  'budgets.users': advanced('per-username daily budget instead of `budgets.user_daily_tokens`, e.g. { alice = 2000000, ops = 0 } (0 = no budget)'),
  'budgets.channel_daily_tokens': advanced(
    'tokens all conversations of one channel may use per UTC day (a Slack channel; on Discord each thread or DM is its own channel); past it a new turn there is refused (0 = no budget)',
  ),
  'budgets.channels': advanced('per-channel daily budget instead of `budgets.channel_daily_tokens`, e.g. { "slack:C0123" = 500000 } (0 = no budget)'),
  'agent.idle_evict_minutes': advanced('workstreams idle this long are evicted from memory'),
  'agent.max_steps': common('model calls per user turn before the agent stops and says so'),
  'agent.sub_agent_max_steps': advanced('model calls of one task/plan sub-agent before it must answer with what it has'),
  'agent.watch_tick_seconds': advanced('how often the watch runner looks for due watches'),
  'agent.max_queued_messages': advanced('messages that may wait behind a running turn; more are refused'),
  'agent.instructions': common('extra text appended to the system message'),
  'tools.search': advanced('dynamic tool search: "auto", "on" or "off"'),
  'tools.search_threshold': advanced('with "auto", search turns on above this many tools'),
  'tools.search_max_results': advanced('tools returned per search'),
  'tools.tavily_api_key': common('web_search through Tavily', '"tvly-..."'),
  'tools.sandbox': common(
    'bash, math, man, search, watch: "auto" (bubblewrap; process tools refused when it does not work), "bwrap" (refuse to start without it) or "off" (unconfined)',
  ),
  'tools.network': common(
    'sandboxed bash\'s network: "off" (none) or "ask" (only through the gateway\'s egress proxy; a new host asks the owner with a card)',
  ),
  'tools.network_allow': advanced('hosts that pass the proxy without a card: "pypi.org", "pypi.org:443", "*.github.com", "*.github.com:443"'),
  'tools.network_internal': advanced('exact "host:port" on private addresses you trust (an internal mirror); still allowed or asked; never the gateway itself'),
  'tools.sandbox_memory_mb': advanced('address-space limit per sandboxed process'),
  'tools.sandbox_max_processes': advanced('processes per sandboxed call (not enforced by the kernel when the gateway runs as root)'),
  'tools.sandbox_max_file_mb': advanced('largest file a sandboxed process may write'),
  'tools.read_roots': common('extra read-only roots for the file tools, e.g. ["/srv/docs"]; config, data_dir and database stay protected'),
  'memory.max_content': advanced('characters per memory the memory tool accepts'),
  'memory.relevance_k': advanced('memories most relevant to the last user messages shown in the system message; 0 = none'),
  'memory.fetch_limit': advanced('candidate memories (matching a word of those messages, newest first) ranked per model call'),
  'memory.nudges': advanced('a one-call note suggesting the model save or search memories after a correction, a denied tool call, a resumed conversation or a wrap-up'),
  'memory.nudge_cooldown_s': advanced('least time between two nudges of one kind in one conversation (at most 10 per loaded conversation)'),
  'discord.token': required('bot token; enables Discord', '"..."'),
  'discord.guild_id': common('restrict to one guild; slash commands are registered there', '"123456789012345678"'),
  'discord.channel_ids': common('allow-list of channel ids; empty = every channel'),
  'discord.api_url': advanced('REST base override (tests, proxies); the client adds /v10'),
  'discord.thread_participants': common('who may talk in a thread: "owner", or "linked" (any linked user)'),
  'discord.approver_roles': advanced('role ids whose members may decide any approval card (besides the owner and admins)'),
  'discord.global_requests_per_second': advanced("discord.js's global REST limit; raise it only if Discord granted your bot more"),
  'discord.channel_models': advanced('default model alias of new threads per parent channel id, e.g. { "123456789012345678" = "fast" }'),
  'discord.dm': common('direct messages are conversations; false answers them with a hint (notification replies still work)'),
  'discord.shard_count': advanced('total shards; "auto" = the count Discord recommends (GET /gateway/bot)'),
  'discord.shards': advanced('shard ids this instance always holds; empty = leased from the shared PostgreSQL (docs/scale-out.md)'),
  'slack.bot_token': required('both tokens are required to enable Slack', '"xoxb-..."'),
  'slack.app_token': required('Socket Mode app token (not needed when mode = "http")', '"xapp-..."'),
  'slack.mode': common('"socket" (Socket Mode, app_token) or "http": Slack POSTs events, interactivity and commands to /slack/events on the gateway'),
  'slack.signing_secret': common('mode = "http": the app\'s signing secret (Basic Information); every request is verified with it'),
  'slack.channel_ids': common('allow-list of channel ids; empty = every channel'),
  'slack.slash_command': advanced('the slash command the app registers'),
  'slack.api_url': advanced('Web API base override (tests, proxies)'),
  'slack.thread_participants': common('who may talk in a thread: "owner", or "linked" (any linked user)'),
  'slack.approver_groups': advanced('user group ids (S…) whose members may decide any approval card (scope usergroups:read)'),
  'slack.channel_models': advanced('default model alias of new threads per channel id, e.g. { "C0123456789" = "fast" }'),
  'slack.native_streaming': advanced('stream answers natively (chat.startStream) where the workspace can; false = message edits'),
  'slack.dm': common('direct messages are conversations; false answers them with a hint (notification replies still work)'),
  'slack.agent_sessions': advanced('threads show Slack agent sessions (status, title, native Stop button); needs the app declared as an agent'),
  'slack.client_id': advanced('installs in many workspaces (mode = "http"): the app\'s OAuth client id; serves /slack/install and /slack/oauth_redirect under gateway.public_url'),
  'slack.client_secret': advanced('the app\'s OAuth client secret (with client_id); or SANDPIPER_SLACK_CLIENT_SECRET'),
  'slack.token_key': advanced('key that encrypts the installs\' bot tokens at rest (AES-256-GCM); or SANDPIPER_SLACK_TOKEN_KEY. At least 16 characters; `openssl rand -base64 32`'),
  'slack.token_key_previous': advanced('earlier token keys, still read; rotate by moving the old key here, setting a new token_key and running `sandpiper slack installs rekey`'),
  'mcp.servers.<name>.type': common('"stdio" (default) or "http" (streamable HTTP)'),
  'mcp.servers.<name>.command': common('stdio: executable', '"npx"'),
  'mcp.servers.<name>.args': common('stdio: arguments'),
  'mcp.servers.<name>.env': advanced('stdio: extra environment (the rest is scrubbed)'),
  'mcp.servers.<name>.cwd': advanced('stdio: working directory'),
  'mcp.servers.<name>.url': common('http: endpoint', '"http://127.0.0.1:3001/mcp"'),
  'mcp.servers.<name>.headers': advanced('http: request headers'),
  'mcp.servers.<name>.timeout_seconds': advanced('per call'),
  'mcp.servers.<name>.auth': advanced('http: "oauth" = each user authorizes the server as themselves (per-user tokens, needs gateway.public_url); "none" (default) = static headers only'),
  'mcp.servers.<name>.client_id': advanced('oauth: a pre-registered client id; without it the gateway registers itself (dynamic client registration)'),
  'mcp.servers.<name>.client_secret': advanced('oauth: the pre-registered client\'s secret (confidential clients)'),
  'mcp.servers.<name>.scopes': advanced('oauth: scopes to ask for; default: what the server advertises'),
  'mcp.token_key': advanced('key that encrypts OAuth tokens at rest (AES-256-GCM); or SANDPIPER_MCP_TOKEN_KEY. At least 16 characters; `openssl rand -base64 32`'),
  'mcp.token_key_previous': advanced('earlier token keys, still read; rotate by moving the old key here, setting a new token_key and running `sandpiper mcp auth rekey`'),
  'mcp.authorization_timeout_seconds': advanced('how long a tool call waits for its caller to finish an OAuth authorization'),
  'mcp.registry_url': advanced('the MCP registry `sandpiper mcp search` and `mcp install` use (its `/v0/servers` API)'),
  'mcp.servers.<name>.sandbox': advanced('stdio: run the server in the tool sandbox (writable: its cwd, else `<data_dir>/mcp/<name>`)'),
  'mcp.allow_unsandboxed_runtime_servers': advanced(
    'servers added at run time (sandpiper mcp add, the admin API) run in the tool sandbox; without a sandbox they are refused unless this is true; only the config file can set it, never the API',
  ),
  'mcp.config_file': advanced('a standard {"mcpServers": {...}} JSON file, e.g. "./mcp.json"'),
  'log.level': common('fatal, error, warn, info, debug, trace, silent'),
  'log.format': advanced('"auto" = pretty on a terminal, JSON otherwise; or "json", "pretty"'),
  'telemetry.otlp_endpoint': advanced('OpenTelemetry traces over OTLP/HTTP to this collector, e.g. "http://127.0.0.1:4318"; unset = no tracing'),
  'cluster.heartbeat_s': advanced('how often leases are renewed, handed-off work polled and dead instances\' leases taken over'),
  'cluster.lease_ttl_s': advanced(
    'a lease not renewed this long is taken over (failover ≈ lease_ttl_s + heartbeat_s); at least 2 × heartbeat_s. Default: 3 × heartbeat_s',
  ),
};
