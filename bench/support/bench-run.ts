/** What the bot benchmarks share: flags, percentiles, polling, the Sandpiper database, bot processes, interleaved rounds, table cells. */
import { fork, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createKnex, createStores, runMigrations } from '../../src/storage/index.js';
import { startBenchLlm, type BenchLlm } from './bench-llm.js';
import { compiledScript } from './compile-bot.js';

export type Bot = 'bare' | 'sandpiper';

/** `--name=value` from the command line, or `fallback`. */
export const arg = (name: string, fallback: string): string =>
  process.argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3) ?? fallback;

export { median, pct } from './percentiles.js';
export const fmt = (value: number): string => (Number.isFinite(value) ? value.toFixed(1) : '-');
export const signed = (value: number): string => `${value >= 0 ? '+' : ''}${fmt(value)}`;

export async function waitUntil(check: () => boolean, timeoutMs: number, what: string, pollMs = 20): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`benchmark timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, pollMs));
  }
}

/** Users `bench0..n-1` linked on `platform` in a fresh SQLite file for Sandpiper (the bare bot answers anybody). */
export async function prepareDatabase(
  dir: string,
  n: number,
  platform: 'discord' | 'slack',
  userId: (k: number) => string,
): Promise<string> {
  const url = `sqlite:${join(dir, 'sandpiper.db')}`;
  const knex = createKnex(url);
  await runMigrations(knex);
  const stores = createStores(knex);
  for (let k = 0; k < n; k++) {
    const user = await stores.users.createUser(`bench${k}`);
    await stores.users.link(platform, userId(k), user.userId);
  }
  await knex.destroy();
  return url;
}

export interface BotProcess {
  send: (message: object) => void;
  ask: <T>(message: object, reply: string) => Promise<T>;
  stop: () => Promise<void>;
  /** What the bot reported when it was ready (an HTTP bot names its `url`). */
  ready: { type: string; url?: string };
}

/** Forks bench/support/<script>, compiled (compile-bot.ts), with the launch JSON in argv[2]; output discarded, IPC kept. */
export function forkBot(
  script: string,
  launch: object,
  execArgv: string[] = [],
): { child: ChildProcess; stop: () => Promise<void> } {
  const child = fork(compiledScript(join(import.meta.dirname, script)), [JSON.stringify(launch)], {
    // --expose-gc: the bot's heap figure is read after a full collection (bot-stats.ts), so it is what the bot keeps,
    // not how much garbage the last message left.
    execArgv: ['--expose-gc', ...execArgv],
    stdio: ['ignore', 'ignore', 'ignore', 'ipc'],
  });
  const stop = async (): Promise<void> => {
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    child.send({ type: 'stop' });
    const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
    await exited;
    clearTimeout(timer);
  };
  return { child, stop };
}

/** Forks the bot and resolves once it reported `ready` (rejects if it exits first, naming it `what`). */
export function spawnBot(script: string, launch: object, what: string, execArgv: string[] = []): Promise<BotProcess> {
  const { child, stop } = forkBot(script, launch, execArgv);
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
  return new Promise((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`${what} exited early (${code})`)));
    void ask<BotProcess['ready']>({}, 'ready').then((ready) => {
      child.removeAllListeners('exit');
      resolve({ send: (message) => child.send(message), ask, stop, ready });
    });
  });
}

/** `rounds` rounds of both bots, alternating which goes first; each bot's results in round order. */
export async function interleaved<T>(rounds: number, run: (bot: Bot) => Promise<T>): Promise<Record<Bot, T[]>> {
  const results: Record<Bot, T[]> = { bare: [], sandpiper: [] };
  for (let round = 0; round < rounds; round++) {
    const order: Bot[] = round % 2 === 0 ? ['bare', 'sandpiper'] : ['sandpiper', 'bare'];
    for (const bot of order) results[bot].push(await run(bot));
  }
  return results;
}

/** `1x30` = 30 conversations one after another; `1000` = 1,000 at once. */
export function parseSize(size: string): { n: number; sequential: boolean } {
  const sequential = size.startsWith('1x');
  return { n: Number(sequential ? size.slice(2) : size), sequential };
}

/** One round's resources: a fresh fake platform, a fresh streaming fake LLM and a temporary folder, all gone afterwards. */
export async function inRound<F extends { close: () => Promise<void> }, T>(
  startFake: () => Promise<F>,
  dirPrefix: string,
  run: (fake: F, llm: BenchLlm, dir: string) => Promise<T>,
): Promise<T> {
  const [fake, llm] = await Promise.all([startFake(), startBenchLlm()]);
  const dir = mkdtempSync(join(tmpdir(), dirPrefix));
  try {
    return await run(fake, llm, dir);
  } finally {
    await Promise.all([fake.close(), llm.close()]);
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Runs `run` with the path of a request template file in a temporary folder (removed afterwards) holding `initial`. */
export async function withTemplateFile<T>(
  dirPrefix: string,
  initial: unknown,
  run: (templateFile: string) => Promise<T>,
): Promise<T> {
  const work = mkdtempSync(join(tmpdir(), dirPrefix));
  const templateFile = join(work, 'request.json');
  writeFileSync(templateFile, JSON.stringify(initial));
  try {
    return await run(templateFile);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}
