/** Doctor checks that call the outside world with one cheap request each: model endpoints, Discord, Slack. */
import type { Config, ModelConfig } from '../config/index.js';
import { fail, ok, probe, skip, warn, type CheckResult } from './doctor-check.js';

const OPENAI_BASE = 'https://api.openai.com/v1';
const ANTHROPIC_BASE = 'https://api.anthropic.com';
const DISCORD_API = 'https://discord.com/api';
const SLACK_API = 'https://slack.com/api/';

const statusText = (status: number): string =>
  status === 401
    ? '401 unauthorized'
    : status === 403
      ? '403 forbidden'
      : status === 404
        ? '404 not found'
        : `HTTP ${status}`;

function authHeaders(model: ModelConfig): Record<string, string> {
  if (model.provider === 'anthropic') return { 'x-api-key': model.api_key ?? '', 'anthropic-version': '2023-06-01' };
  return model.api_key ? { authorization: `Bearer ${model.api_key}` } : {};
}

/** Lists the models (OpenAI `GET /models`, Anthropic `GET /v1/models`): proves the URL and the key without spending tokens. */
export async function checkModel(alias: string, model: ModelConfig): Promise<CheckResult> {
  const name = `model ${alias}`;
  const anthropic = model.provider === 'anthropic';
  const base = (model.base_url ?? (anthropic ? ANTHROPIC_BASE : OPENAI_BASE)).replace(/\/+$/, '');
  const url = anthropic ? `${base}/v1/models` : `${base}/models`;
  const keyName = `models.${alias}.api_key${anthropic ? ' (or ANTHROPIC_API_KEY)' : ' (or OPENAI_API_KEY)'}`;
  const answer = await probe(url, { headers: authHeaders(model) });
  if ('error' in answer)
    return fail(name, `${url}: ${answer.error}`, `check models.${alias}.base_url and that the server is running`);
  if (answer.status === 401 || answer.status === 403)
    return fail(name, `${url}: ${statusText(answer.status)}`, `check ${keyName}`);
  if (answer.status >= 400)
    return fail(
      name,
      `${url}: ${statusText(answer.status)}`,
      `check models.${alias}.base_url (an OpenAI-compatible URL ends in /v1; an Anthropic one is the host root)`,
    );
  const ids = ((answer.body as { data?: Array<{ id?: unknown }> } | null)?.data ?? []).map((entry) => entry.id);
  const listed = ids.length === 0 || ids.includes(model.model) ? '' : ` (the server does not list "${model.model}")`;
  return ok(name, `${model.provider} at ${base}, ${model.model}${listed}`);
}

/** `GET /users/@me` with the bot token. */
export async function checkDiscord(config: Config['discord']): Promise<CheckResult> {
  if (!config.token) return skip('discord', 'not configured (discord.token)');
  const url = `${(config.api_url ?? DISCORD_API).replace(/\/+$/, '')}/v10/users/@me`;
  const answer = await probe(url, { headers: { authorization: `Bot ${config.token}` } });
  if ('error' in answer) return fail('discord', `${url}: ${answer.error}`, 'check the network or discord.api_url');
  if (answer.status === 401)
    return fail(
      'discord',
      'the token was refused (401)',
      'set a valid bot token in discord.token or SANDPIPER_DISCORD_TOKEN (Developer Portal → Bot → Reset Token)',
    );
  if (answer.status >= 400) return fail('discord', `${url}: ${statusText(answer.status)}`, 'check discord.api_url');
  const bot = answer.body as { username?: string; id?: string };
  return ok('discord', `logged in as ${bot.username ?? '?'} (${bot.id ?? '?'})`);
}

type SlackAnswer = { ok: boolean; error?: string; user?: string; team?: string; scopes?: string[] | undefined };

async function slackCall(base: string, method: string, token: string): Promise<SlackAnswer | { transport: string }> {
  const answer = await probe(`${base}${method}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/x-www-form-urlencoded' },
  });
  if ('error' in answer) return { transport: answer.error };
  if (answer.status >= 400) return { transport: statusText(answer.status) };
  // Slack names the token's scopes in a header of every answer.
  const scopes = answer.headers
    .get('x-oauth-scopes')
    ?.split(',')
    .map((scope) => scope.trim());
  return { ...(answer.body as SlackAnswer), scopes };
}

/** `auth.test` with the bot token, and `apps.connections.open` with the app token (Socket Mode; not in HTTP mode). */
export async function checkSlack(config: Config['slack']): Promise<CheckResult> {
  const http = config.mode === 'http';
  const unchecked = withoutBotToken(config);
  if (unchecked || !config.bot_token) return unchecked ?? skip('slack', 'not configured');
  const base = config.api_url ?? SLACK_API;
  const auth = await slackCall(base, 'auth.test', config.bot_token);
  if ('transport' in auth)
    return fail('slack', `${base}auth.test: ${auth.transport}`, 'check the network or slack.api_url');
  if (!auth.ok)
    return fail(
      'slack',
      `bot token refused (${auth.error ?? 'error'})`,
      'set the xoxb- token in slack.bot_token or SANDPIPER_SLACK_BOT_TOKEN',
    );
  const bot = `bot ${auth.user ?? '?'} in ${auth.team ?? '?'}`;
  if (http)
    return sessionsCheck(
      `${bot}; HTTP mode: Slack's request URL is <gateway>/slack/events`,
      config.agent_sessions,
      auth.scopes,
    );
  const socket = await slackCall(base, 'apps.connections.open', config.app_token ?? '');
  if ('transport' in socket)
    return fail('slack', `${base}apps.connections.open: ${socket.transport}`, 'check the network or slack.api_url');
  if (!socket.ok) {
    return fail(
      'slack',
      `app token refused (${socket.error ?? 'error'})`,
      'set an xapp- token with connections:write in slack.app_token or SANDPIPER_SLACK_APP_TOKEN, and enable Socket Mode',
    );
  }
  return sessionsCheck(`${bot}; Socket Mode available`, config.agent_sessions, auth.scopes);
}

/** The result when there is no bot token to check: installs in many workspaces, or Slack not configured. */
function withoutBotToken(config: Config['slack']): CheckResult | undefined {
  const second = config.mode === 'http' ? 'signing_secret' : 'app_token';
  if (config.mode === 'http' && config.client_id !== undefined && !config.bot_token && config.signing_secret) {
    return ok(
      'slack',
      'installs in many workspaces (slack.client_id): a workspace installs the app at <gateway.public_url>/slack/install; `sandpiper slack installs list` shows them',
    );
  }
  if (!config.bot_token || !config[second])
    return skip('slack', `not configured (slack.bot_token and slack.${second})`);
  return undefined;
}

/** Agent sessions need the app declared as an agent, which grants assistant:write (Slack refuses setStatus without). */
function sessionsCheck(found: string, wanted: boolean, scopes: readonly string[] | undefined): CheckResult {
  if (!wanted || scopes === undefined) return ok('slack', found);
  if (scopes.includes('assistant:write')) return ok('slack', `${found}; agent sessions available`);
  return warn(
    'slack',
    `${found}; agent sessions refused: the bot token lacks assistant:write`,
    'declare the app as an agent (agent_view in slack-app-manifest.yaml) and reinstall it, or set slack.agent_sessions = false',
  );
}
