/**
 * Benchmark: catch-up of N missed mentions (default 100) written while the bot was down. Sandpiper's gateway
 * (startGateway, SQLite, the openai provider; bench/support/sandpiper-bot.ts) next to a bare discord.js bot doing the
 * same I/O on start (bench/support/bare-discord-bot.ts: the same history reads, then thread + streamed answer per
 * message), each in its own process against the same kind of fake Discord and streaming fake LLM in this process.
 * Measured from READY: until the last missed message's model request arrived (all turns started) and until its
 * final answer arrived at the fake. Rounds alternate which bot goes first; medians over rounds are printed.
 *
 *   npm run bench:catch-up -- --messages=100 --rounds=5
 */
import { fork } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createKnex, createStores, runMigrations } from '../src/storage/index.js';
import { FakeDiscord } from '../test/fakes/fake-discord.js';
import { answerFor, startBenchLlm } from './support/bench-llm.js';
import type { BotLaunch } from './support/bot-launch.js';

const CHANNEL = '300000000000000001';
const arg = (name: string, fallback: string): string => process.argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3) ?? fallback;
const messages = Number(arg('messages', '100'));
const rounds = Number(arg('rounds', '5'));
type Bot = 'bare' | 'sandpiper';
const userId = (k: number): string => String(500000000000000000n + BigInt(k));
const median = (values: readonly number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? Number.NaN;

async function waitUntil(check: () => boolean, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`benchmark timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

async function prepareDatabase(dir: string, n: number): Promise<string> {
  const url = `sqlite:${join(dir, 'sandpiper.db')}`;
  const knex = createKnex(url);
  await runMigrations(knex);
  const stores = createStores(knex);
  for (let k = 0; k < n; k++) await stores.users.link('discord', userId(k), (await stores.users.createUser(`bench${k}`)).userId);
  await knex.destroy();
  return url;
}

function spawnBot(bot: Bot, launch: BotLaunch): { stop: () => Promise<void> } {
  const child = fork(join(import.meta.dirname, 'support', bot === 'bare' ? 'bare-discord-bot.ts' : 'sandpiper-bot.ts'), [JSON.stringify(launch)], {
    execArgv: ['--import', 'tsx'],
    stdio: ['ignore', 'ignore', 'ignore', 'ipc'],
  });
  return {
    stop: async () => {
      const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
      child.send({ type: 'stop' });
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(timer);
    },
  };
}

/** One round: N mentions written while no bot runs, then the bot starts; resolves with [turns started, answered] in ms from READY. */
async function runRound(bot: Bot, n: number, templateFile: string): Promise<[number, number]> {
  const [fake, llm] = await Promise.all([FakeDiscord.start(), startBenchLlm()]);
  const dir = mkdtempSync(join(tmpdir(), 'sandpiper-bench-catch-up-'));
  try {
    const launch: BotLaunch = {
      discordApiUrl: fake.apiUrl, discordToken: fake.token, llmUrl: llm.url, globalRequestsPerSecond: 1_000_000, dataDir: dir,
      databaseUrl: bot === 'sandpiper' ? await prepareDatabase(dir, n) : '', requestTemplateFile: templateFile, editIntervalMs: 1500,
      ...(bot === 'bare' ? { catchUpChannel: CHANNEL } : {}),
    };
    const expected = new Set<string>();
    for (let k = 0; k < n; k++) {
      fake.state.injectMessage(CHANNEL, fake.user(userId(k), `bench${k}`), `bench-${k}-0 please answer`, true);
      expected.add(answerFor(`${k}-0`));
    }
    const child = spawnBot(bot, launch);
    await waitUntil(() => fake.gateway.readyAt > 0, 60_000, 'READY');
    await waitUntil(() => llm.requestAt.size >= n, 600_000, 'every turn started');
    const started = Math.max(...llm.requestAt.values()) - fake.gateway.readyAt;
    let answeredAt = 0;
    let scanned = 0;
    await waitUntil(() => {
      for (; scanned < fake.requests.length; scanned++) {
        const request = fake.requests[scanned];
        const content = (request?.body as { content?: unknown } | undefined)?.content;
        if (request && typeof content === 'string' && expected.delete(content)) answeredAt = request.hr;
      }
      return expected.size === 0;
    }, 600_000, 'every final answer');
    await child.stop();
    return [started, answeredAt - fake.gateway.readyAt];
  } finally {
    await Promise.all([fake.close(), llm.close()]);
    rmSync(dir, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  const work = mkdtempSync(join(tmpdir(), 'sandpiper-bench-template-'));
  const templateFile = join(work, 'request.json');
  writeFileSync(templateFile, JSON.stringify({ model: 'bench', messages: [{ role: 'system', content: 'You are a benchmark.' }] }));
  const results: Record<Bot, Array<[number, number]>> = { bare: [], sandpiper: [] };
  try {
    // Warm-up (not measured): disk caches and tsx's compile cache for both bots.
    for (const bot of ['bare', 'sandpiper'] as const) await runRound(bot, 5, templateFile);
    for (let round = 0; round < rounds; round++) {
      const order: Bot[] = round % 2 === 0 ? ['bare', 'sandpiper'] : ['sandpiper', 'bare'];
      for (const bot of order) results[bot].push(await runRound(bot, messages, templateFile));
    }
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  console.log(`catch-up of ${messages} missed mentions: ${rounds} interleaved rounds, medians (ms from READY); each answer streams 30 tokens 10 ms apart`);
  console.log('bot       | all turns started | all answered');
  for (const bot of ['bare', 'sandpiper'] as const) {
    const started = median(results[bot].map((r) => r[0]));
    const answered = median(results[bot].map((r) => r[1]));
    console.log(`${bot.padEnd(9)} | ${started.toFixed(0).padStart(17)} | ${answered.toFixed(0).padStart(12)}`);
  }
}

await main();
