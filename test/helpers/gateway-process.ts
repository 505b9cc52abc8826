/**
 * The real gateway as its own process (`sandpiper start`) against fakes in the test process, so a test can kill it with
 * SIGKILL and start it again on the same data directory (crash tests, ADR 0013).
 */
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createKnex, createStores, type Knex, type Stores } from '../../src/storage/index.js';
import type { FakeDiscord } from '../fakes/fake-discord.js';
import type { FakeLlmServer } from '../fakes/fake-llm-server.js';
import type { FakeSlack } from '../fakes/fake-slack.js';
import { waitFor } from '../fakes/mcp-servers.js';
import { BinProcess, cleanEnv } from './run-bin.js';

export interface GatewayProcessOptions {
  llm: FakeLlmServer;
  discord?: FakeDiscord;
  slack?: FakeSlack;
  /** Extra TOML appended to the generated config (own tables only, e.g. `[tools]`). */
  extraToml?: string;
  /** Lines added to the `[gateway]` table. */
  gatewayToml?: string;
  /** Lines added to the `[discord]` table (e.g. fixed `shards`). */
  discordToml?: string;
  /** Lines added to the `[slack]` table (e.g. `mode = "http"`). */
  slackToml?: string;
  /** A shared database (PostgreSQL: several instances, ADR 0021) instead of this data directory's SQLite file. */
  databaseUrl?: string;
}

/** A data directory and config shared by successive gateway processes; `start` launches one, `kill` SIGKILLs it. */
export class GatewayProcesses {
  readonly dir: string;
  readonly configFile: string;
  readonly databaseUrl: string;
  private current: BinProcess | undefined;
  private knex: Knex | undefined;

  constructor(private readonly options: GatewayProcessOptions) {
    // Not under /tmp: a sandboxed tool has a private /tmp, and its workspace must be the real one.
    this.dir = mkdtempSync(path.join(existsSync('/var/tmp') ? '/var/tmp' : tmpdir(), 'sp-crash-'));
    this.configFile = path.join(this.dir, 'config.toml');
    this.databaseUrl = options.databaseUrl ?? `sqlite:${path.join(this.dir, 'data', 'sandpiper.db')}`;
    writeFileSync(this.configFile, this.toml());
  }

  private toml(): string {
    const { llm, discord, slack } = this.options;
    const lines = ['[gateway]', 'http_port = 0', 'data_dir = "data"', this.options.gatewayToml ?? '', ''];
    if (this.options.databaseUrl !== undefined) lines.push('[database]', `url = "${this.options.databaseUrl}"`, '');
    lines.push(
      '[models.main]',
      'provider = "openai"',
      `base_url = "${llm.url}"`,
      'api_key = "sk-test"',
      'model = "gpt-fake"',
      '',
    );
    if (discord)
      lines.push(
        '[discord]',
        `token = "${discord.token}"`,
        `api_url = "${discord.apiUrl}"`,
        this.options.discordToml ?? '',
        '',
      );
    if (slack)
      lines.push(
        '[slack]',
        `bot_token = "${slack.botToken}"`,
        `app_token = "${slack.appToken}"`,
        `api_url = "${slack.apiUrl}"`,
        this.options.slackToml ?? '',
        '',
      );
    lines.push('[log]', 'format = "json"', '', this.options.extraToml ?? '');
    return lines.join('\n');
  }

  /** Starts a gateway process and waits until its HTTP server listens (the platforms may still be connecting). */
  async launch(): Promise<{ url: string; pid: number }> {
    const child = new BinProcess(['start', '--config', this.configFile], this.dir, cleanEnv());
    this.current = child;
    const [, pid, url] = (await child.waitFor(
      /"pid":(\d+)[^\n]*"msg":"http listening on (http:\/\/[0-9.:]+)"/,
      60_000,
    )) as unknown as [string, string, string];
    return { url, pid: Number(pid) };
  }

  /** Starts a gateway process and waits until /health shows every configured platform connected. */
  async start(): Promise<{ url: string; pid: number }> {
    const { url, pid } = await this.launch();
    const platforms = [this.options.discord && 'discord', this.options.slack && 'slack'].filter(
      (name): name is string => typeof name === 'string',
    );
    await waitFor(
      async () => {
        const health = (await (await fetch(`${url}/health`)).json()) as { adapters: Record<string, string> };
        return platforms.every((name) => health.adapters[name] === 'connected');
      },
      'the platforms to connect',
      60_000,
    );
    return { url, pid };
  }

  /** Output of the running (or last) process. */
  output(): string {
    return this.current?.output ?? '';
  }

  /** SIGKILL: nothing runs after it, no shutdown code, no flush. */
  async kill(): Promise<void> {
    const child = this.current;
    if (child === undefined) return;
    child.kill();
    await child.exited;
  }

  /** A graceful stop (SIGTERM); resolves with the exit code. */
  async stop(): Promise<number | null> {
    return (await this.current?.stop('SIGTERM')) ?? null;
  }

  /** The gateway's database, opened by the test (SQLite in WAL mode allows it while a gateway runs). */
  stores(): Stores {
    this.knex ??= createKnex(this.databaseUrl);
    return createStores(this.knex);
  }

  db(): Knex {
    this.knex ??= createKnex(this.databaseUrl);
    return this.knex;
  }

  /** Creates a user and links a platform account to it. */
  async linkUser(platform: string, platformUserId: string, username: string): Promise<void> {
    const { users } = this.stores();
    await users.link(platform, platformUserId, (await users.createUser(username)).userId);
  }

  async close(): Promise<void> {
    await this.current?.stop('SIGTERM').catch(() => undefined);
    await this.knex?.destroy();
    rmSync(this.dir, { recursive: true, force: true });
  }
}
