/**
 * Benchmark: Sandpiper's gateway next to a bare discord.js bot doing the same I/O (bench/support/bare-discord-bot.ts),
 * each in its own process, against the same fake Discord and the same streaming fake LLM in this process.
 * Per size N: N threads at once open with a mention (new thread), then each gets a follow-up (existing thread);
 * size 1xK runs K conversations one after another (per-message overhead without queueing).
 * Measured per message: inbound → LLM request arrived, and last token written → final edit arrived at the fake.
 * Rounds alternate which bot goes first; the table shows medians over rounds of each round's p50/p95, the bot
 * process's event-loop lag and memory. discord.js's global request limit is raised for both bots.
 *
 *   npm run bench:discord -- --sizes=1x40,100,1000 --rounds=3
 *   npm run bench:discord -- --sizes=1x40 --rounds=1 --profile=/tmp/prof   (then bench/support/profile-summary.ts)
 */
import { fork } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createKnex, createStores, runMigrations } from '../src/storage/index.js';
import { FakeDiscord, type FakeUser } from '../test/fakes/fake-discord.js';
import { answerFor, startBenchLlm, type BenchLlm } from './support/bench-llm.js';
import type { BotLaunch } from './support/bot-launch.js';
import type { BotStats } from './support/bot-stats.js';

const CHANNEL = '300000000000000001';
const GLOBAL_LIMIT = 1_000_000;
const arg = (name: string, fallback: string): string => process.argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3) ?? fallback;
/** `1x30` = 30 conversations one after another; `1000` = 1,000 at once. */
const sizes = arg('sizes', '1x40,100,1000').split(',');
const rounds = Number(arg('rounds', '3'));
/** `--profile=<dir>`: each bot process writes a V8 CPU profile to <dir>/<bot>/ (bench/support/profile-summary.ts reads them). */
const profileDir = arg('profile', '');
type Bot = 'bare' | 'sandpiper';

interface PhaseResult {
  firstMs: number[];
  finalMs: number[];
}
interface RoundResult {
  phases: [PhaseResult, PhaseResult];
  stats: BotStats;
}

const pct = (values: readonly number[], p: number): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
};
const median = (values: readonly number[]): number => pct(values, 50);

async function waitUntil(check: () => boolean, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`benchmark timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** Users linked in a fresh SQLite file for Sandpiper (the bare bot answers anybody). */
async function prepareDatabase(dir: string, n: number): Promise<string> {
  const url = `sqlite:${join(dir, 'sandpiper.db')}`;
  const knex = createKnex(url);
  await runMigrations(knex);
  const stores = createStores(knex);
  for (let k = 0; k < n; k++) {
    const user = await stores.users.createUser(`bench${k}`);
    await stores.users.link('discord', userId(k), user.userId);
  }
  await knex.destroy();
  return url;
}

const userId = (k: number): string => String(500000000000000000n + BigInt(k));

interface BotProcess {
  send: (message: object) => void;
  ask: <T>(message: object, reply: string) => Promise<T>;
  stop: () => Promise<void>;
}

function spawnBot(bot: Bot, launch: BotLaunch): Promise<BotProcess> {
  const child = fork(join(import.meta.dirname, 'support', bot === 'bare' ? 'bare-discord-bot.ts' : 'sandpiper-bot.ts'), [JSON.stringify(launch)], {
    execArgv: ['--import', 'tsx', ...(profileDir ? ['--cpu-prof', `--cpu-prof-dir=${join(profileDir, bot)}`] : [])],
    stdio: ['ignore', 'ignore', 'ignore', 'ipc'],
  });
  const ask = <T>(message: object, reply: string): Promise<T> =>
    new Promise((resolve) => {
      const onMessage = (received: { type: string } & Record<string, unknown>): void => {
        if (received.type !== reply) return;
        child.off('message', onMessage);
        resolve(received as T);
      };
      child.on('message', onMessage);
      if (Object.keys(message).length > 0) child.send(message);
    });
  const stop = async (): Promise<void> => {
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    child.send({ type: 'stop' });
    const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
    await exited;
    clearTimeout(timer);
  };
  return new Promise((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`${bot} bot exited early (${code})`)));
    void ask({}, 'ready').then(() => {
      child.removeAllListeners('exit');
      resolve({ send: (message) => child.send(message), ask, stop });
    });
  });
}

/** Sends one message per thread at once and waits for every final edit. */
async function phase(fake: FakeDiscord, llm: BenchLlm, users: FakeUser[], threads: string[], index: 0 | 1, sequential: boolean, tag = ''): Promise<PhaseResult> {
  const sentAt = new Map<string, number>();
  const keyOf = (k: number): string => `${tag}${k}-${index}`;
  const finalAt = new Map<string, number>();
  let scanned = 0;
  const expected = new Map(users.map((_, k) => [answerFor(keyOf(k)), keyOf(k)]));
  const arrived = (count: number): Promise<void> =>
    waitUntil(() => {
      for (; scanned < fake.requests.length; scanned++) {
        const request = fake.requests[scanned];
        const content = (request?.body as { content?: unknown } | undefined)?.content;
        const key = typeof content === 'string' ? expected.get(content) : undefined;
        if (key !== undefined && request !== undefined && /\/messages/.test(request.path)) finalAt.set(key, request.hr);
      }
      return finalAt.size >= count;
    }, 600_000, 'final edits');
  for (let k = 0; k < users.length; k++) {
    const key = keyOf(k);
    sentAt.set(key, performance.now());
    const message = fake.state.injectMessage(index === 0 ? CHANNEL : (threads[k] as string), users[k] as FakeUser, `bench-${key} please answer`, index === 0);
    if (index === 0) threads[k] = message.id;
    // Sequential mode: one conversation at a time, so the figures are per-message overhead without queueing.
    if (sequential) await arrived(k + 1);
  }
  await arrived(users.length);
  const result: PhaseResult = { firstMs: [], finalMs: [] };
  for (const [key, sent] of sentAt) {
    result.firstMs.push((llm.requestAt.get(key) ?? Number.NaN) - sent);
    result.finalMs.push((finalAt.get(key) ?? Number.NaN) - (llm.lastTokenAt.get(key) ?? Number.NaN));
  }
  return result;
}

async function runRound(bot: Bot, n: number, sequential: boolean, templateFile: string): Promise<RoundResult & { template?: unknown }> {
  const [fake, llm] = await Promise.all([FakeDiscord.start(), startBenchLlm()]);
  const dir = mkdtempSync(join(tmpdir(), 'sandpiper-bench-'));
  try {
    const launch: BotLaunch = {
      discordApiUrl: fake.apiUrl, discordToken: fake.token, llmUrl: llm.url, globalRequestsPerSecond: GLOBAL_LIMIT,
      dataDir: dir, databaseUrl: bot === 'sandpiper' ? await prepareDatabase(dir, n) : '', requestTemplateFile: templateFile, editIntervalMs: 1500,
    };
    const child = await spawnBot(bot, launch);
    const users = Array.from({ length: n }, (_, k) => fake.user(userId(k), `bench${k}`));
    const threads: string[] = [];
    // Warm-up (not measured): connections, JIT and lazy module loading of both bots happen here.
    const warmUsers = users.slice(0, Math.min(n, 10));
    const warmThreads: string[] = [];
    for (const index of [0, 1] as const) await phase(fake, llm, warmUsers, warmThreads, index, true, 'w');
    child.send({ type: 'lag-start' });
    const created = await phase(fake, llm, users, threads, 0, sequential);
    const followed = await phase(fake, llm, users, threads, 1, sequential);
    const { stats } = await child.ask<{ stats: BotStats }>({ type: 'stats' }, 'stats');
    await child.stop();
    return { phases: [created, followed], stats, template: llm.firstBody };
  } finally {
    await Promise.all([fake.close(), llm.close()]);
    rmSync(dir, { recursive: true, force: true });
  }
}

const fmt = (value: number): string => (Number.isFinite(value) ? value.toFixed(1) : '-');

function row(n: string, label: string, bot: Bot, results: RoundResult[], index: 0 | 1): { first: number; final: number } {
  const each = (pick: (r: RoundResult) => number): number => median(results.map(pick));
  const first = each((r) => pct(r.phases[index].firstMs, 50));
  const final = each((r) => pct(r.phases[index].finalMs, 50));
  console.log(
    `${String(n).padEnd(5)} | ${label.padEnd(15)} | ${bot.padEnd(9)} | ${`${fmt(first)} / ${fmt(each((r) => pct(r.phases[index].firstMs, 95)))}`.padEnd(19)} | ` +
      `${`${fmt(final)} / ${fmt(each((r) => pct(r.phases[index].finalMs, 95)))}`.padEnd(19)} | ${`${fmt(each((r) => r.stats.lagP99Ms))} / ${fmt(each((r) => r.stats.lagMaxMs))}`.padEnd(15)} | ` +
      `${fmt(each((r) => r.stats.rssMb)).padEnd(6)} | ${fmt(each((r) => r.stats.heapMb))}`,
  );
  return { first, final };
}

async function main(): Promise<void> {
  const work = mkdtempSync(join(tmpdir(), 'sandpiper-bench-template-'));
  const templateFile = join(work, 'request.json');
  // Warm-up (not measured): Sandpiper's own LLM request body becomes the one the bare bot sends.
  writeFileSync(templateFile, '{}');
  const warm = await runRound('sandpiper', 1, true, templateFile);
  writeFileSync(templateFile, JSON.stringify(warm.template));
  console.log(`discord: ${rounds} interleaved rounds per size; medians over rounds of per-round p50 / p95 (ms); lag and memory of the bot process`);
  console.log('N    | conversation    | bot       | inbound→LLM req     | last token→final    | loop lag p99/max | rss MB | heap MB');
  for (const size of sizes) {
    const sequential = size.startsWith('1x');
    const n = Number(sequential ? size.slice(2) : size);
    const results: Record<Bot, RoundResult[]> = { bare: [], sandpiper: [] };
    for (let round = 0; round < rounds; round++) {
      const order: Bot[] = round % 2 === 0 ? ['bare', 'sandpiper'] : ['sandpiper', 'bare'];
      for (const bot of order) results[bot].push(await runRound(bot, n, sequential, templateFile));
    }
    for (const [index, label] of [[0, 'new thread'], [1, 'existing thread']] as const) {
      const bare = row(size, label, 'bare', results.bare, index);
      const ours = row(size, label, 'sandpiper', results.sandpiper, index);
      console.log(
        `${size.padEnd(5)} | ${label.padEnd(15)} | ratio     | ${`${(ours.first / bare.first).toFixed(2)}x (+${fmt(ours.first - bare.first)})`.padEnd(19)} | ` +
          `${`${(ours.final / bare.final).toFixed(2)}x (+${fmt(ours.final - bare.final)})`.padEnd(19)} |`,
      );
    }
  }
  rmSync(work, { recursive: true, force: true });
}

await main();
