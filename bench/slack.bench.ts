/**
 * Benchmark: Sandpiper's gateway on Slack next to a bare bolt app doing the same I/O (bench/support/bare-slack-bot.ts),
 * each in its own process, against the same fake Slack (Web API + Socket Mode) and the same streaming fake LLM in
 * this process. Per size N: N threads at once open with a mention, then each gets a follow-up in its thread; size 1xK
 * runs K conversations one after another (per-message overhead without queueing). Each mode is run: `stream`
 * (native streaming: chat.startStream / appendStream / stopStream) and `edit` (chat.postMessage + chat.update).
 * Measured per message: inbound event sent → LLM request arrived, and last token written → final call arrived at the
 * fake (the stopStream of the whole answer, or the update that shows it). Rounds alternate which bot goes first; the
 * table shows medians over rounds of each round's p50/p95, and the bot process's event-loop lag and memory.
 *
 *   npm run bench:slack -- --sizes=1x20,100 --rounds=3 --modes=stream,edit
 */
import { fork } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createKnex, createStores, runMigrations } from '../src/storage/index.js';
import { BOT_USER_ID, FakeSlack, type FakeSlackUser } from '../test/fakes/fake-slack.js';
import { answerFor, startBenchLlm, type BenchLlm } from './support/bench-llm.js';
import type { BotStats } from './support/bot-stats.js';
import type { SlackBotLaunch } from './support/slack-bot-launch.js';

const CHANNEL = 'C0BENCH';
const arg = (name: string, fallback: string): string => process.argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3) ?? fallback;
const sizes = arg('sizes', '1x20,100').split(',');
const rounds = Number(arg('rounds', '3'));
const modes = arg('modes', 'stream,edit').split(',') as SlackBotLaunch['mode'][];
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
const userId = (k: number): string => `U0B${String(k).padStart(6, '0')}`;

async function waitUntil(check: () => boolean, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`benchmark timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** Users linked in a fresh SQLite file for Sandpiper (the bare app answers anybody). */
async function prepareDatabase(dir: string, n: number): Promise<string> {
  const url = `sqlite:${join(dir, 'sandpiper.db')}`;
  const knex = createKnex(url);
  await runMigrations(knex);
  const stores = createStores(knex);
  for (let k = 0; k < n; k++) {
    const user = await stores.users.createUser(`bench${k}`);
    await stores.users.link('slack', userId(k), user.userId);
  }
  await knex.destroy();
  return url;
}

interface BotProcess {
  send: (message: object) => void;
  ask: <T>(message: object, reply: string) => Promise<T>;
  stop: () => Promise<void>;
}

function spawnBot(bot: Bot, launch: SlackBotLaunch): Promise<BotProcess> {
  const child = fork(join(import.meta.dirname, 'support', bot === 'bare' ? 'bare-slack-bot.ts' : 'sandpiper-slack-bot.ts'), [JSON.stringify(launch)], {
    execArgv: ['--import', 'tsx'],
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
    child.once('exit', (code) => reject(new Error(`${bot} slack app exited early (${code})`)));
    void ask({}, 'ready').then(() => {
      child.removeAllListeners('exit');
      resolve({ send: (message) => child.send(message), ask, stop });
    });
  });
}

/** The answer text a final call shows: an update's or post's text, or the stopped stream message's text. */
function shownBy(fake: FakeSlack, call: FakeSlack['calls'][number]): string | undefined {
  if (call.method === 'chat.update' || call.method === 'chat.postMessage') return typeof call.body.text === 'string' ? call.body.text : undefined;
  if (call.method === 'chat.stopStream') return fake.state.find(String(call.body.channel), String(call.body.ts))?.text;
  return undefined;
}

/** Sends one message per thread (all at once, or one after another) and waits for every final call. */
async function phase(fake: FakeSlack, llm: BenchLlm, users: FakeSlackUser[], threads: string[], index: 0 | 1, sequential: boolean, tag = ''): Promise<PhaseResult> {
  const sentAt = new Map<string, number>();
  const finalAt = new Map<string, number>();
  const keyOf = (k: number): string => `${tag}${k}-${index}`;
  const expected = new Map(users.map((_, k) => [answerFor(keyOf(k)), keyOf(k)]));
  let scanned = 0;
  const arrived = (count: number): Promise<void> =>
    waitUntil(() => {
      for (; scanned < fake.calls.length; scanned++) {
        const call = fake.calls[scanned];
        const text = call ? shownBy(fake, call) : undefined;
        const key = text === undefined ? undefined : expected.get(text);
        if (key !== undefined && call?.hr !== undefined && (call.method !== 'chat.postMessage' || !finalAt.has(key))) finalAt.set(key, call.hr);
      }
      return finalAt.size >= count;
    }, 600_000, 'final calls');
  for (let k = 0; k < users.length; k++) {
    const key = keyOf(k);
    sentAt.set(key, performance.now());
    const text = index === 0 ? `<@${BOT_USER_ID}> bench-${key} please answer` : `bench-${key} please answer`;
    const { message } = fake.userMessage(users[k] as FakeSlackUser, CHANNEL, text, index === 0 ? undefined : threads[k]);
    if (index === 0) threads[k] = message.ts;
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

async function runRound(bot: Bot, mode: SlackBotLaunch['mode'], n: number, sequential: boolean, templateFile: string): Promise<RoundResult & { template?: unknown }> {
  const [fake, llm] = await Promise.all([FakeSlack.start(), startBenchLlm()]);
  fake.streams.rules.enabled = mode === 'stream';
  const dir = mkdtempSync(join(tmpdir(), 'sandpiper-bench-slack-'));
  try {
    const launch: SlackBotLaunch = {
      slackApiUrl: fake.apiUrl, botToken: fake.botToken, appToken: fake.appToken, llmUrl: llm.url, mode,
      dataDir: dir, databaseUrl: bot === 'sandpiper' ? await prepareDatabase(dir, n) : '', requestTemplateFile: templateFile, editIntervalMs: 1500,
    };
    const child = await spawnBot(bot, launch);
    const users = Array.from({ length: n }, (_, k) => fake.user(userId(k), `bench${k}`));
    // Warm-up (not measured): connections, JIT and lazy module loading of both bots happen here.
    const warmThreads: string[] = [];
    for (const index of [0, 1] as const) await phase(fake, llm, users.slice(0, Math.min(n, 10)), warmThreads, index, true, 'w');
    child.send({ type: 'lag-start' });
    const threads: string[] = [];
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
const signed = (value: number): string => `${value >= 0 ? '+' : ''}${fmt(value)}`;

function row(size: string, label: string, bot: Bot, results: RoundResult[], index: 0 | 1): { first: number; final: number } {
  const each = (pick: (r: RoundResult) => number): number => median(results.map(pick));
  const first = each((r) => pct(r.phases[index].firstMs, 50));
  const final = each((r) => pct(r.phases[index].finalMs, 50));
  console.log(
    `${size.padEnd(5)} | ${label.padEnd(24)} | ${bot.padEnd(9)} | ${`${fmt(first)} / ${fmt(each((r) => pct(r.phases[index].firstMs, 95)))}`.padEnd(19)} | ` +
      `${`${fmt(final)} / ${fmt(each((r) => pct(r.phases[index].finalMs, 95)))}`.padEnd(19)} | ${`${fmt(each((r) => r.stats.lagP99Ms))} / ${fmt(each((r) => r.stats.lagMaxMs))}`.padEnd(16)} | ` +
      `${fmt(each((r) => r.stats.rssMb)).padEnd(6)} | ${fmt(each((r) => r.stats.heapMb))}`,
  );
  return { first, final };
}

async function main(): Promise<void> {
  const work = mkdtempSync(join(tmpdir(), 'sandpiper-bench-slack-template-'));
  const templateFile = join(work, 'request.json');
  // Warm-up (not measured): Sandpiper's own LLM request body becomes the one the bare app sends.
  writeFileSync(templateFile, '{}');
  const warm = await runRound('sandpiper', 'edit', 1, true, templateFile);
  writeFileSync(templateFile, JSON.stringify(warm.template));
  console.log(`slack: ${rounds} interleaved rounds per size and mode; medians over rounds of per-round p50 / p95 (ms); lag and memory of the bot process`);
  console.log('N     | mode / conversation      | bot       | inbound→LLM req     | last token→final    | loop lag p99/max | rss MB | heap MB');
  for (const mode of modes) {
    for (const size of sizes) {
      const sequential = size.startsWith('1x');
      const n = Number(sequential ? size.slice(2) : size);
      const results: Record<Bot, RoundResult[]> = { bare: [], sandpiper: [] };
      for (let round = 0; round < rounds; round++) {
        const order: Bot[] = round % 2 === 0 ? ['bare', 'sandpiper'] : ['sandpiper', 'bare'];
        for (const bot of order) results[bot].push(await runRound(bot, mode, n, sequential, templateFile));
      }
      for (const [index, conversation] of [[0, 'new thread'], [1, 'existing thread']] as const) {
        const label = `${mode} / ${conversation}`;
        const bare = row(size, label, 'bare', results.bare, index);
        const ours = row(size, label, 'sandpiper', results.sandpiper, index);
        console.log(
          `${size.padEnd(5)} | ${label.padEnd(24)} | added     | ${`${signed(ours.first - bare.first)} (${(ours.first / bare.first).toFixed(2)}x)`.padEnd(19)} | ` +
            `${`${signed(ours.final - bare.final)} (${(ours.final / bare.final).toFixed(2)}x)`.padEnd(19)} |`,
        );
      }
    }
  }
  rmSync(work, { recursive: true, force: true });
}

await main();
