/**
 * The gateway the crash fuzzer kills (bench/crash-faults.ts). On SQLite, or PostgreSQL without `--takeover`, one
 * process is killed and started again on the same data. With `--takeover` (PostgreSQL only) two processes share one
 * database and one data directory (the shared `workspace_dir` docs/scale-out.md asks for when a conversation's files
 * must follow it), with a 0.5 s heartbeat and 2 s leases set through `[cluster]` as a user would: each kill hits the
 * instance holding the Discord shard (and so the round's conversations), the other one must take over and finish them,
 * and the killed one starts again as the standby, so the two instances swap roles every round
 * (bench/support/takeover-rounds.ts). A `--database` run gets a fresh database on that server, dropped at the end.
 */
import type { Knex } from 'knex';
import { runMigrations, type Stores } from '../../src/storage/index.js';
import type { FakeDiscord } from '../../test/fakes/fake-discord.js';
import type { FakeLlmServer } from '../../test/fakes/fake-llm-server.js';
import { waitFor } from '../../test/fakes/mcp-servers.js';
import { GatewayProcesses } from '../../test/helpers/gateway-process.js';
import { BinProcess, cleanEnv } from '../../test/helpers/run-bin.js';
import { createDatabaseOn, type ThrowawayDatabase } from '../../test/helpers/throwaway-postgres.js';

const CLUSTER_TOML = '[cluster]\nheartbeat_s = 0.5\nlease_ttl_s = 2\n';

interface Instance {
  process: BinProcess;
  url: string;
}

/** One kill of the shard holder (takeover): which instance, and how many of the given threads it held. */
export interface TakeoverKill {
  index: number;
  held: number;
}

export class CrashInstances {
  private readonly single: GatewayProcesses;
  private readonly instances: Array<Instance | undefined> = [undefined, undefined];
  private killed: number | undefined;
  /** Kills that hit the instance holding the conversation and were finished by the other one (takeover only). */
  takeovers = 0;

  private constructor(
    private readonly discord: FakeDiscord,
    llm: FakeLlmServer,
    database: string,
    readonly takeover: boolean,
    private readonly fresh: ThrowawayDatabase | undefined,
  ) {
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

  /** `database`: a PostgreSQL server's URL (a fresh database is made on it), or '' for SQLite. */
  static async open(
    discord: FakeDiscord,
    llm: FakeLlmServer,
    database: string,
    takeover: boolean,
  ): Promise<CrashInstances> {
    if (takeover && database === '') throw new Error('--takeover needs --database=postgres://…');
    const fresh = database === '' ? undefined : await createDatabaseOn(database, 'sp_crash');
    return new CrashInstances(discord, llm, fresh?.url ?? '', takeover, fresh);
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

  /** SIGKILL of the single gateway (no takeover). */
  async kill(): Promise<void> {
    await this.single.kill();
  }

  /** After a kill: the same gateway starts again on the same data (no takeover). */
  async recover(): Promise<void> {
    await this.single.start();
  }

  /** No-op without takeover (kept for the single-instance rounds' shape). */
  async settle(): Promise<void> {}

  /** Takeover: SIGKILL of the instance holding the Discord shard; counts which of `threadIds` it held. */
  async killShardHolder(threadIds: string[]): Promise<TakeoverKill> {
    const holder = await this.shardHolder();
    const index = this.instanceOf(await this.urlOf(holder));
    const instance = this.instances[index];
    if (instance === undefined) throw new Error('no live instance to kill');
    let held = 0;
    for (const threadId of threadIds) if ((await this.workstreamHolder(threadId)) === holder) held++;
    this.instances[index] = undefined;
    this.killed = index;
    instance.process.kill();
    await instance.process.exited;
    return { index, held };
  }

  /** Takeover: resolves once the survivor holds the Discord shard (its lease moved away from the killed instance). */
  async failedOver(): Promise<void> {
    const survivor = this.instances.find((instance) => instance !== undefined);
    await waitFor(
      async () => this.discord.gateway.holders(0) > 0 && (await this.urlOf(await this.shardHolder())) === survivor?.url,
      'the other instance to take the Discord shard',
      60_000,
    );
    this.takeovers++;
  }

  /** Takeover: the killed instance starts again, as the standby. */
  async relaunch(): Promise<void> {
    if (this.killed === undefined) return;
    const index = this.killed;
    this.killed = undefined;
    await this.launch(index);
  }

  /** Warnings and errors the gateways logged, for a round that went wrong. */
  problems(): string[] {
    const outputs = this.takeover
      ? this.instances.map((instance) => instance?.process.output ?? '')
      : [this.single.output()];
    return outputs.flatMap((output) => output.split('\n').filter((line) => /"level":[456]0/.test(line)));
  }

  async close(): Promise<void> {
    await Promise.allSettled(this.instances.map((instance) => instance?.process.stop('SIGTERM')));
    await this.single.close();
    await this.fresh?.drop();
  }

  private async launch(index: number): Promise<void> {
    const child = new BinProcess(['start', '--config', this.single.configFile], this.single.dir, cleanEnv());
    const match = await child.waitFor(/"msg":"http listening on (http:\/\/[0-9.:]+)"/, 60_000);
    this.instances[index] = { process: child, url: match[1] ?? '' };
  }

  /** Some live instance holds the Discord shard. */
  private async shardHeld(): Promise<void> {
    await waitFor(() => this.discord.gateway.holders(0) > 0, 'the Discord shard to be held', 60_000);
  }

  private async shardHolder(): Promise<string | undefined> {
    const row = (await this.db()('shard_leases').where({ shard_id: 0 }).first('holder')) as
      { holder: string } | undefined;
    return row?.holder;
  }

  private async workstreamHolder(threadId: string): Promise<string | undefined> {
    const route = await this.stores().routes.getRoute('discord', threadId);
    if (route === undefined) return undefined;
    const row = (await this.db()('workstream_leases').where({ workstream_id: route.wsId }).first('holder')) as
      { holder: string } | undefined;
    return row?.holder;
  }

  private async urlOf(serviceId: string | undefined): Promise<string | undefined> {
    if (serviceId === undefined) return undefined;
    const row = (await this.db()('services').where({ service_id: serviceId }).first('url')) as
      { url: string } | undefined;
    return row?.url;
  }

  private instanceOf(url: string | undefined): number {
    const index = this.instances.findIndex((instance) => instance !== undefined && instance.url === url);
    return index >= 0 ? index : this.instances.findIndex((instance) => instance !== undefined);
  }
}
