/**
 * Benchmark: POST /v1/api/notify of the real gateway (startGateway, own process) next to a bare node:http + jose
 * server doing the same work (bench/support/notify-bare.ts, own process), loaded by autocannon from this process.
 * Two paths: a channel target on a platform without adapter (auth, body, parse, answer: no I/O behind it) and an
 * unknown username (one SQLite lookup, then cached 5 s by both). Per path: max requests/s (autocannon, 50
 * connections, closed loop) and p50/p99/max latency under open-loop load at a fixed `--rate` (default 1,000
 * requests/s; bench/support/open-loop.ts, latency from each request's due time, so stalls are not hidden).
 * Rounds alternate which server goes first; figures are medians over rounds.
 *
 *   npm run bench:notify -- --rounds=3 --seconds=5
 *   npm run bench:notify -- --rounds=1 --profile=/tmp/prof   (then bench/support/profile-summary.ts /tmp/prof/sandpiper)
 */
import { fork } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { compiledScript } from './support/compile-bot.js';
import { openLoop } from './support/open-loop.js';
import { mintServiceToken } from '../src/gateway/http/auth.js';
import { createKnex, createStores, runMigrations } from '../src/storage/index.js';

const arg = (name: string, fallback: string): string =>
  process.argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3) ?? fallback;
const ROUNDS = Number(arg('rounds', '3'));
const SECONDS = Number(arg('seconds', '5'));
/** `--profile=<dir>`: each server process writes a V8 CPU profile to <dir>/<server>/ (see bench/support/profile-summary.ts). */
const RATE = Number(arg('rate', '1000'));
const PROFILE_DIR = arg('profile', '');
const SECRET = 'bench-notify-secret-bench-notify-secret';
type Server = 'bare' | 'sandpiper';
const PATHS = {
  channel: JSON.stringify({
    target: { channel_type: 'discord', channel_id: '300000000000000001' },
    message: 'deploy finished',
    title: 'CI',
  }),
  'unknown user': JSON.stringify({ target: { username: 'nobody' }, message: 'deploy finished' }),
} as const;
type PathName = keyof typeof PATHS;
/** `--paths=channel,unknown user` and `--servers=sandpiper` narrow a run (profiling, experiments). */
const PATH_NAMES = arg('paths', Object.keys(PATHS).join(',')).split(',') as PathName[];
const SERVERS = arg('servers', 'bare,sandpiper').split(',') as Server[];

interface Figures {
  maxRps: number;
  p50AtRate: number;
  p99AtRate: number;
  maxAtRate: number;
  /** CPU time of the server process (all its threads) per request of the max-rate run, in µs. */
  cpuUsPerRequest: number;
  failures: number;
}

/**
 * User + system CPU time of a process in ms, from /proc (Linux; NaN elsewhere). Less sensitive to a busy machine than
 * requests/s: a server starved of a core does fewer requests per second, not more CPU per request.
 */
function cpuMs(pid: number): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8')
      .replace(/^.*\) /s, '')
      .split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
  } catch {
    return Number.NaN;
  }
}

const median = (values: readonly number[]): number =>
  [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? Number.NaN;

interface RunningServer {
  url: string;
  pid: number;
  stop: () => Promise<void>;
}

function spawnServer(server: Server, launch: object): Promise<RunningServer> {
  const file = join(import.meta.dirname, 'support', server === 'bare' ? 'notify-bare.ts' : 'notify-sandpiper.ts');
  const child = fork(compiledScript(file), [JSON.stringify(launch)], {
    execArgv: [...(PROFILE_DIR ? ['--cpu-prof', `--cpu-prof-dir=${join(PROFILE_DIR, server)}`] : [])],
    stdio: ['ignore', 'ignore', 'ignore', 'ipc'],
  });
  return new Promise((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`${server} exited early (${code})`)));
    child.once('message', (message: { url: string }) => {
      child.removeAllListeners('exit');
      const stop = (): Promise<void> =>
        new Promise((done) => {
          child.once('exit', () => done());
          child.send({ type: 'stop' });
        });
      resolve({ url: message.url, pid: child.pid ?? 0, stop });
    });
  });
}

async function load({ url, pid }: RunningServer, body: string, token: string): Promise<Figures> {
  const request = {
    url: `${url}/v1/api/notify`,
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body,
  };
  await autocannon({ ...request, connections: 10, duration: 1 });
  const cpuBefore = cpuMs(pid);
  const max = await autocannon({ ...request, connections: 50, duration: SECONDS });
  const cpuUsPerRequest = ((cpuMs(pid) - cpuBefore) * 1000) / Math.max(1, max.requests.total);
  const paced = await openLoop({
    origin: url,
    path: '/v1/api/notify',
    headers: request.headers,
    body,
    rate: RATE,
    seconds: SECONDS,
  });
  return {
    maxRps: max.requests.average,
    p50AtRate: paced.p50,
    p99AtRate: paced.p99,
    maxAtRate: paced.max,
    cpuUsPerRequest,
    failures: max.errors + max.timeouts + paced.failed,
  };
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'sandpiper-bench-notify-'));
  const databaseFile = join(dir, 'sandpiper.db');
  const knex = createKnex(`sqlite:${databaseFile}`);
  await runMigrations(knex);
  await createStores(knex).users.createUser('alice');
  await knex.destroy();
  const token = await mintServiceToken({ secret: SECRET, audience: 'turnstone-channel' }, { ttlSeconds: 3600 });
  const results = new Map<string, Figures[]>();
  for (let round = 0; round < ROUNDS; round++) {
    const order = (round % 2 === 0 ? SERVERS : [...SERVERS].reverse()) as Server[];
    for (const server of order) {
      const running = await spawnServer(server, {
        dataDir: dir,
        databaseUrl: `sqlite:${databaseFile}`,
        databaseFile,
        secret: SECRET,
      });
      for (const path of PATH_NAMES) {
        const key = `${path}|${server}`;
        results.set(key, [...(results.get(key) ?? []), await load(running, PATHS[path], token)]);
      }
      await running.stop();
    }
  }
  console.log(`notify: ${ROUNDS} interleaved rounds, ${SECONDS} s per load; medians over rounds`);
  console.log(
    'path          | server    | max req/s | × bare | CPU µs/req | × bare | p50 ms @rate | p99 ms @rate | max ms @rate | errors',
  );
  for (const path of PATH_NAMES) {
    const bareMax = median((results.get(`${path}|bare`) ?? []).map((f) => f.maxRps));
    const bareCpu = median((results.get(`${path}|bare`) ?? []).map((f) => f.cpuUsPerRequest));
    for (const server of SERVERS) {
      const figures = results.get(`${path}|${server}`) ?? [];
      const maxRps = median(figures.map((f) => f.maxRps));
      const cpu = median(figures.map((f) => f.cpuUsPerRequest));
      console.log(
        `${path.padEnd(13)} | ${server.padEnd(9)} | ${maxRps.toFixed(0).padStart(9)} | ${(maxRps / bareMax).toFixed(2).padStart(6)} | ` +
          `${cpu.toFixed(0).padStart(10)} | ${(cpu / bareCpu).toFixed(2).padStart(6)} | ` +
          `${median(figures.map((f) => f.p50AtRate))
            .toFixed(1)
            .padStart(14)} | ${median(figures.map((f) => f.p99AtRate))
            .toFixed(1)
            .padStart(14)} | ${median(figures.map((f) => f.maxAtRate))
            .toFixed(1)
            .padStart(12)} | ${figures.reduce((sum, f) => sum + f.failures, 0)}`,
      );
    }
  }
  rmSync(dir, { recursive: true, force: true });
}

await main();
