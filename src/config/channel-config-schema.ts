/** The Discord and Slack sections of the configuration schema (config-schema.ts composes them); user input, so strict. */
import { z } from 'zod';

const nonEmpty = z.string().min(1);

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
export function checkSlack(
  slack: z.infer<typeof slackConfigSchema>,
  publicUrl: string | undefined,
  context: z.RefinementCtx,
): void {
  const issue = (key: string, message: string): void =>
    context.addIssue({ code: 'custom', path: ['slack', key], message });
  if (slack.client_id !== undefined) {
    if (slack.mode !== 'http') issue('mode', 'slack.client_id (installs in many workspaces) needs slack.mode = "http"');
    if (!slack.client_secret)
      issue('client_secret', 'slack.client_id needs slack.client_secret (or SANDPIPER_SLACK_CLIENT_SECRET)');
    if (!slack.token_key)
      issue(
        'token_key',
        "slack.client_id needs slack.token_key (or SANDPIPER_SLACK_TOKEN_KEY) to encrypt the installs' tokens",
      );
    if (publicUrl === undefined)
      issue(
        'client_id',
        'slack.client_id needs gateway.public_url (the OAuth redirect URL is <public_url>/slack/oauth_redirect)',
      );
  }
  if (slack.mode === 'http') {
    const hasToken = Boolean(slack.bot_token) || slack.client_id !== undefined;
    if (hasToken !== Boolean(slack.signing_secret)) {
      const missing = hasToken ? 'signing_secret' : 'bot_token';
      issue(
        missing,
        'slack.signing_secret and slack.bot_token (or slack.client_id) are required when slack.mode = "http"',
      );
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
    slash_command: z
      .string()
      .regex(/^\/[a-z0-9_-]+$/, 'must look like /name')
      .default('/sandpiper'),
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
