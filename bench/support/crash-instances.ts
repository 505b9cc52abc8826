/**
 * The gateway the crash fuzzer kills (bench/crash-faults.ts). On SQLite, or PostgreSQL without `--takeover`, one
 * process is killed and started again on the same data. With `--takeover` (PostgreSQL only) two processes share one
 * database and one data directory (the shared `workspace_dir` docs/scale-out.md asks for when a conversation's files
 * must follow it), with a 1 s heartbeat and 3 s leases: a kill hits the instance holding the thread's workstream (or,
 * before the workstream exists, the Discord shard), and the other one must finish the turn. The killed instance is
 * started again as the standby only after the round was counted.
 */
import type { Knex } from 'knex';
import { runMigrations, type Stores } from '../../src/storage/index.js';
import type { FakeDiscord } from '../../test/fakes/fake-discord.js';
import type { FakeLlmServer } from '../../test/fakes/fake-llm-server.js';
import { waitFor } from '../../test/fakes/mcp-servers.js';
import { GatewayProcesses } from '../../test/helpers/gateway-process.js';
import { BinProcess, cleanEnv } from '../../test/helpers/run-bin.js';

const CLUSTER_TOML = '[cluster]\nheartbeat_s = 1\nlease_ttl_s = 3\n';

interface Instance {
  process: BinProcess;
  url: string;
}

export class CrashInstances {
  private readonly single: GatewayProcesses;
  private readonly instances: Array<Instance | undefined> = [undefined, undefined];
  private killed: number | undefined;
  /** Kills that hit the instance holding the conversation and were finished by the other one (takeover only). */
  takeovers = 0;

  constructor(
    private readonly discord: FakeDiscord,
    llm: FakeLlmServer,
    database: string,
    readonly takeover: boolean,
  ) {
    if (takeover && database === '') throw new Error('--takeover needs --database=postgres://…');
    const extraToml = `[tools]\nsandbox = "off"\n${takeover ? CLUSTER_TOML : ''}`;
    // One user asks everything: the per-user limit would refuse a warm-up's burst of mentions.
    const gatewayToml = 'user_rate_limit = 100000';
    this.single = new GatewayProcesses({
      llm,
      discord,
      extraToml,
      gatewayToml,
      ...(database === '' ? {} : { databaseUrl: database }),
    });
  }

  get dir(): string {
    return this.single.dir;
  }

  db(): Knex {
    return this.single.db();
  }

  stores(): Stores {
    return this.single.stores();
  }

  linkUser(platform: string, platformUserId: string, username: string): Promise<void> {
    return this.single.linkUser(platform, platformUserId, username);
  }

  async start(): Promise<void> {
    if (!this.takeover) {
      await this.single.start();
      return;
    }
    // Migrated here first: two instances starting at once would race for the migration lock.
    await runMigrations(this.db());
    await Promise.all([this.launch(0), this.launch(1)]);
    await this.shardHeld();
  }

  /** SIGKILL of the instance running the thread's conversation. */
  async kill(threadId: string): Promise<void> {
    if (!this.takeover) return this.single.kill();
    const index = await this.holderOf(threadId);
    const instance = this.instances[index];
    if (instance === undefined) return;
    this.instances[index] = undefined;
    this.killed = index;
    instance.process.kill();
    await instance.process.exited;
  }

  /** After a kill: the same instance starts again, or (takeover) nothing: the survivor must finish the turn. */
  async recover(): Promise<void> {
    if (!this.takeover) await this.single.start();
  }

  /** After the round was counted (takeover): the killed instance starts again as the standby. */
  async settle(): Promise<void> {
    if (this.killed === undefined) return;
    const index = this.killed;
    this.killed = undefined;
    this.takeovers++;
    await this.launch(index);
    await this.shardHeld();
  }

  /** Warnings and errors the running (or last) single gateway logged, for a round that went wrong. */
  problems(): string[] {
    return this.single
      .output()
      .split('\n')
      .filter((line) => /"level":[456]0/.test(line));
  }

  async close(): Promise<void> {
    await Promise.allSettled(this.instances.map((instance) => instance?.process.stop('SIGTERM')));
    await this.single.close();
  }

  private async launch(index: number): Promise<void> {
    const child = new BinProcess(['start', '--config', this.single.configFile], this.single.dir, cleanEnv());
    const match = await child.waitFor(/"msg":"http listening on (http:\/\/[0-9.:]+)"/, 60_000);
    this.instances[index] = { process: child, url: match[1] ?? '' };
  }

  /** Some live instance holds the Discord shard (after a kill, once its lease expired and the survivor took it). */
  private async shardHeld(): Promise<void> {
    await waitFor(() => this.discord.gateway.holders(0) > 0, 'the Discord shard to be held', 60_000);
  }

  /** The instance holding the thread's workstream lease; before there is one, the instance holding the shard. */
  private async holderOf(threadId: string): Promise<number> {
    const db = this.db();
    const route = await this.stores().routes.getRoute('discord', threadId);
    const lease =
      route === undefined
        ? undefined
        : ((await db('workstream_leases').where({ workstream_id: route.wsId }).first('holder')) as
            { holder: string } | undefined);
    const holder =
      lease?.holder ??
      ((await db('shard_leases').where({ shard_id: 0 }).first('holder')) as { holder: string } | undefined)?.holder;
    const service =
      holder === undefined
        ? undefined
        : ((await db('services').where({ service_id: holder }).first('url')) as { url: string } | undefined);
    const index = this.instances.findIndex((instance) => instance !== undefined && instance.url === service?.url);
    return index >= 0 ? index : this.instances.findIndex((instance) => instance !== undefined);
  }
}
