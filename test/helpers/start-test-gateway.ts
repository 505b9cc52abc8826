/** Runs the whole composition root (startGateway) against the fakes: config, linked users, /health, cleanup. */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { loadConfig } from '../../src/config/index.js';
import { startGateway, type RunningGateway } from '../../src/main.js';
import { createSilentLogger } from '../../src/shared/logger.js';
import { createKnex, createStores } from '../../src/storage/index.js';
import type { FakeDiscord } from '../fakes/fake-discord.js';
import type { FakeLlmServer } from '../fakes/fake-llm-server.js';
import type { FakeSlack } from '../fakes/fake-slack.js';
import { waitFor } from '../fakes/mcp-servers.js';

export interface TestGatewayOptions {
  llm: FakeLlmServer;
  discord?: FakeDiscord;
  slack?: FakeSlack;
  /** MCP servers run with this Node binary: server name → arguments. */
  mcpServers?: Record<string, string[]>;
  /** SANDPIPER_JWT_SECRET, for tests that mint service tokens. */
  jwtSecret?: string;
  /** SANDPIPER_ADMIN_SECRET: serves the admin API on 127.0.0.1 (a free port unless `admin.listen` is in `flags`). */
  adminSecret?: string;
  /** Further config flags (they win over the ones the helper sets). */
  flags?: Record<string, unknown>;
  /** Users created and linked before the gateway is ready: [platform, platform user id, username]. */
  users?: ReadonlyArray<readonly [string, string, string]>;
  /** Also wait until /health shows every configured adapter and MCP server connected. */
  waitConnected?: boolean;
  /** Written to `<data dir>/config.toml` and loaded as the config file (flags and env still win). */
  configToml?: string;
}

export interface TestHealth {
  adapters: Record<string, string>;
  mcp: { servers: number; tools: number; prompts: number };
}

export interface TestGateway {
  running: RunningGateway;
  /** The data directory (also holds config.toml when `configToml` was given). */
  dir: string;
  /** The gateway's HTTP base URL. */
  url: string;
  /** The admin API's base URL (with `adminSecret`). */
  adminUrl: string | undefined;
  /** The gateway's database (open your own knex on it for setup). */
  databaseUrl: string;
  health(): Promise<TestHealth>;
  /** Creates a user and links a platform user id to it. */
  linkUser(platform: string, platformUserId: string, username: string): Promise<void>;
  /** Stops the gateway, closes the fakes it was given and removes its data directory. */
  close(): Promise<void>;
}

function configFor(dir: string, options: TestGatewayOptions): ReturnType<typeof loadConfig> {
  const { discord, slack, llm } = options;
  const env: Record<string, string> = { SANDPIPER_HTTP_PORT: '0' };
  if (options.jwtSecret !== undefined) env['SANDPIPER_JWT_SECRET'] = options.jwtSecret;
  if (options.adminSecret !== undefined) env['SANDPIPER_ADMIN_SECRET'] = options.adminSecret;
  if (discord) env['SANDPIPER_DISCORD_TOKEN'] = discord.token;
  const flags: Record<string, unknown> = {
    'gateway.data_dir': dir,
    'admin.listen': '127.0.0.1:0',
    'models.main.provider': 'openai',
    'models.main.base_url': llm.url,
    'models.main.api_key': 'sk-test',
    'models.main.model': 'gpt-fake',
  };
  if (discord) flags['discord.api_url'] = discord.apiUrl;
  if (slack)
    Object.assign(flags, {
      'slack.bot_token': slack.botToken,
      'slack.app_token': slack.appToken,
      'slack.api_url': slack.apiUrl,
    });
  for (const [name, args] of Object.entries(options.mcpServers ?? {})) {
    Object.assign(flags, { [`mcp.servers.${name}.command`]: process.execPath, [`mcp.servers.${name}.args`]: args });
  }
  if (options.configToml !== undefined) writeFileSync(path.join(dir, 'config.toml'), options.configToml);
  return loadConfig({ cwd: dir, env, flags: { ...flags, ...options.flags } });
}

/** Starts the gateway on a fresh data directory; on failure everything started so far is closed again. */
export async function startTestGateway(options: TestGatewayOptions): Promise<TestGateway> {
  const dir = mkdtempSync(path.join(tmpdir(), 'sp-gateway-'));
  let running: RunningGateway | undefined;
  const close = async (): Promise<void> => {
    try {
      await running?.stop();
    } finally {
      await Promise.allSettled([options.discord?.close(), options.slack?.close(), options.llm.close()]);
      rmSync(dir, { recursive: true, force: true });
    }
  };
  try {
    const config = configFor(dir, options);
    running = await startGateway(config, createSilentLogger());
    const url = running.httpUrl;
    const gateway: TestGateway = {
      running,
      dir,
      url,
      adminUrl: running.adminUrl,
      databaseUrl: config.database.url,
      close,
      health: async () => (await (await fetch(`${url}/health`)).json()) as TestHealth,
      linkUser: async (platform, platformUserId, username) => {
        const knex = createKnex(config.database.url);
        try {
          const { users } = createStores(knex);
          await users.link(platform, platformUserId, (await users.createUser(username)).userId);
        } finally {
          await knex.destroy();
        }
      },
    };
    for (const [platform, id, name] of options.users ?? []) await gateway.linkUser(platform, id, name);
    await running.ready;
    if (options.waitConnected) await waitConnected(gateway, options);
    return gateway;
  } catch (error) {
    await close();
    throw error;
  }
}

async function waitConnected(gateway: TestGateway, options: TestGatewayOptions): Promise<void> {
  const adapters = [options.discord && 'discord', options.slack && 'slack'].filter(
    (name): name is string => typeof name === 'string',
  );
  const servers = Object.keys(options.mcpServers ?? {}).length;
  const connected = async (): Promise<boolean> => {
    const health = await gateway.health();
    return adapters.every((name) => health.adapters[name] === 'connected') && health.mcp.servers === servers;
  };
  await waitFor(connected, `${[...adapters, `${servers} MCP servers`].join(', ')} to connect`, 60_000);
}
