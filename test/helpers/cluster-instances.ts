/**
 * N real `sandpiper start` processes on one PostgreSQL database, each with its own HTTP port, data dir and model API
 * key (`sk-inst-<i>`, so the fake LLM's request log says which instance ran a turn), all with `[cluster] heartbeat_s
 * = 1`, `lease_ttl_s = 3` and the fakes of `ClusterFakes`. `kill(i)` is SIGKILL: no shutdown code runs.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { waitFor } from '../fakes/mcp-servers.js';
import type { ClusterDatabase } from './cluster-database.js';
import type { ClusterFakes } from './cluster-fakes.js';
import { BinProcess, cleanEnv } from './run-bin.js';

export const CLUSTER_JWT = { secret: 'cluster-test-secret-cluster-test-secret', audience: 'turnstone-channel' };

export interface ClusterInstance {
  index: number;
  dir: string;
  apiKey: string;
  process: BinProcess;
  url: string;
  pid: number;
  /** The registry service id (the lease holder id), once known. */
  instanceId: string | undefined;
  alive: boolean;
}

interface Health {
  adapters: Record<string, string>;
}

function configToml(fakes: ClusterFakes, databaseUrl: string, apiKey: string): string {
  const { discord, slack, llm } = fakes;
  return [
    '[gateway]',
    'http_port = 0',
    'data_dir = "data"',
    'user_rate_limit = 100000',
    '',
    '[database]',
    `url = "${databaseUrl}"`,
    '',
    '[auth]',
    `jwt_secret = "${CLUSTER_JWT.secret}"`,
    '',
    '[cluster]',
    'heartbeat_s = 1',
    'lease_ttl_s = 3',
    '',
    '[models.main]',
    'provider = "openai"',
    `base_url = "${llm.url}"`,
    `api_key = "${apiKey}"`,
    'model = "gpt-fake"',
    '',
    '[discord]',
    `token = "${discord.token}"`,
    `api_url = "${discord.apiUrl}"`,
    '',
    '[slack]',
    `bot_token = "${slack.botToken}"`,
    `app_token = "${slack.appToken}"`,
    `api_url = "${slack.apiUrl}"`,
    '',
    // The tool log is outside the workspace: the sandbox would hide it.
    '[tools]',
    'sandbox = "off"',
    '',
    '[log]',
    'format = "json"',
    '',
  ].join('\n');
}

export class ClusterInstances {
  readonly instances: ClusterInstance[] = [];

  constructor(
    private readonly fakes: ClusterFakes,
    private readonly database: ClusterDatabase,
  ) {}

  /** Starts `count` instances at once and waits until they serve HTTP and the cluster is connected (`ready`). */
  async start(count: number, timeoutMs = 60_000): Promise<void> {
    await Promise.all(Array.from({ length: count }, (_, index) => this.launch(index)));
    await this.ready(timeoutMs);
  }

  private async launch(index: number): Promise<void> {
    const dir = path.join(this.fakes.dir, `instance-${index}`);
    mkdirSync(dir, { recursive: true });
    const apiKey = `sk-inst-${index}`;
    writeFileSync(path.join(dir, 'config.toml'), configToml(this.fakes, this.database.url, apiKey));
    const child = new BinProcess(['start', '--config', path.join(dir, 'config.toml')], dir, cleanEnv());
    const instance: ClusterInstance = {
      index,
      dir,
      apiKey,
      process: child,
      url: '',
      pid: 0,
      instanceId: undefined,
      alive: true,
    };
    this.instances[index] = instance;
    const [, pid, url] = (await child.waitFor(
      /"pid":(\d+)[^\n]*"msg":"http listening on (http:\/\/[0-9.:]+)"/,
      60_000,
    )) as unknown as [string, string, string];
    instance.pid = Number(pid);
    instance.url = url;
  }

  live(): ClusterInstance[] {
    return this.instances.filter((instance) => instance.alive);
  }

  /**
   * Every live instance reports Slack connected, the fake has one Socket Mode connection per live instance, and every
   * Discord shard is held by a live connection. On timeout the error names what is missing, per instance.
   */
  async ready(timeoutMs = 60_000): Promise<void> {
    const check = async (): Promise<string[]> => {
      const problems: string[] = [];
      for (const instance of this.live()) {
        const health = await this.health(instance);
        if (health?.adapters['slack'] !== 'connected')
          problems.push(`instance ${instance.index}: slack ${health?.adapters['slack'] ?? 'no /health'}`);
      }
      if (this.fakes.slack.connected < this.live().length)
        problems.push(
          `fake Slack: ${this.fakes.slack.connected} Socket Mode connections for ${this.live().length} instances`,
        );
      const unheld = this.fakes.unheldShards();
      if (unheld.length > 0)
        problems.push(
          `fake Discord: shard(s) ${unheld.join(', ')} of ${this.fakes.discord.shardCount} held by nobody (IDENTIFYs refused for a wrong shard field: ${this.fakes.discord.gateway.refusedShards})`,
        );
      return problems;
    };
    // Every instance's Discord client gave up (e.g. it identified with the wrong shard count): waiting longer is pointless.
    const hopeless = async (): Promise<boolean> => {
      const states = await Promise.all(
        this.live().map(async (instance) => (await this.health(instance))?.adapters['discord']),
      );
      return states.every((state) => state === 'failed') && this.fakes.unheldShards().length > 0;
    };
    try {
      await waitFor(
        async () => (await check()).length === 0 || (await hopeless()),
        'the cluster to connect',
        timeoutMs,
      );
      if ((await check()).length > 0) throw new Error('hopeless');
    } catch {
      const states = await Promise.all(
        this.live().map(
          async (instance) =>
            `instance ${instance.index}: ${JSON.stringify((await this.health(instance))?.adapters ?? {})}`,
        ),
      );
      throw new Error(
        `the cluster did not connect (waited up to ${timeoutMs} ms; sooner when every Discord client failed): ${(await check()).join('; ')} (adapters: ${states.join('; ')})`,
      );
    }
    await this.learnInstanceIds();
  }

  private async health(instance: ClusterInstance): Promise<Health | undefined> {
    try {
      return (await (await fetch(`${instance.url}/health`)).json()) as Health;
    } catch {
      return undefined;
    }
  }

  /** Matches each instance to its registry row by URL (the row's id is what leases name as holder). */
  private async learnInstanceIds(): Promise<void> {
    const rows = (await this.database.knex('services').select('service_id', 'url')) as Array<{
      service_id: string;
      url: string;
    }>;
    for (const instance of this.instances)
      instance.instanceId = rows.find((row) => row.url === instance.url)?.service_id;
  }

  /** The instance whose service id is `id`. */
  byInstanceId(id: string): ClusterInstance | undefined {
    return this.instances.find((instance) => instance.instanceId === id);
  }

  /** The instance that made a model request, from its API key. */
  byApiKey(authorization: unknown): ClusterInstance | undefined {
    return this.instances.find((instance) => authorization === `Bearer ${instance.apiKey}`);
  }

  /** SIGKILL of instance `index`; resolves once the process is gone. */
  async kill(index: number): Promise<void> {
    const instance = this.instances[index];
    if (!instance?.alive) return;
    instance.alive = false;
    instance.process.kill();
    await instance.process.exited;
  }

  /** Every instance's output, for a failure message. */
  output(index: number): string {
    return this.instances[index]?.process.output ?? '';
  }

  /** Graceful stop of every live instance (SIGTERM), then SIGKILL of what is left. */
  async stop(): Promise<void> {
    await Promise.allSettled(
      this.instances.map(async (instance) => {
        const stopped = instance.process.stop('SIGTERM');
        const timer = setTimeout(() => instance.process.kill(), 15_000);
        await stopped;
        clearTimeout(timer);
        instance.alive = false;
      }),
    );
  }
}
