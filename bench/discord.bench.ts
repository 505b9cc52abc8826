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
 *   npm run bench:discord -- --sizes=1000 --rounds=2 --apart               (fake Discord and fake LLM in processes of their own)
 *   npm run bench:discord -- --sizes=1x40 --rounds=3 --trace               (where the time to the model request goes)
 *   npm run bench:discord -- --sizes=1x40 --rounds=2 --trace --profile=/tmp/prof
 *     then: profile-summary.ts /tmp/prof/sandpiper --window='existing thread|final edit' [--between='<point>,<point>']
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { FakeDiscord } from '../test/fakes/fake-discord.js';
import { discordPlatform, userId } from './support/discord-platform.js';
import {
  arg,
  fmt,
  inRound,
  interleaved,
  parseSize,
  prepareDatabase,
  spawnBot,
  withTemplateFile,
  type Bot,
} from './support/bench-run.js';
import type { BotLaunch } from './support/bot-launch.js';
import { measureApartRound } from './support/apart-round.js';
import { measureRound, printSize, type RoundResult } from './support/latency-rounds.js';
import { printTrace } from './support/trace-table.js';

const GLOBAL_LIMIT = 1_000_000;
/** `1x30` = 30 conversations one after another; `1000` = 1,000 at once. */
const sizes = arg('sizes', '1x40,100,1000').split(',');
const rounds = Number(arg('rounds', '3'));
/**
 * `--profile=<dir>`: each bot process writes a V8 CPU profile to <dir>/<bot>/ (bench/support/profile-summary.ts reads
 * them), sampled every 25 µs: a message's path is a few milliseconds, the default 1 ms interval sees little of it.
 */
const profileDir = arg('profile', '');
/** `--trace` (sequential sizes): where each bot's time goes, point by point (bench/support/trace-assembly.ts). */
const trace = process.argv.includes('--trace');
if (trace) process.env.SANDPIPER_BENCH_TRACE = '1';

function writeTraceWindows(file: string, windows: object): void {
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, JSON.stringify(windows));
}

/** `--apart`: the fake Discord (with the driver) and the fake LLM each in its own process (apart-round.ts). */
const apart = process.argv.includes('--apart');

async function launchFor(
  bot: Bot,
  n: number,
  dir: string,
  apiUrl: string,
  token: string,
  llmUrl: string,
  templateFile: string,
): Promise<BotLaunch> {
  return {
    discordApiUrl: apiUrl,
    discordToken: token,
    llmUrl,
    globalRequestsPerSecond: GLOBAL_LIMIT,
    dataDir: dir,
    databaseUrl: bot === 'sandpiper' ? await prepareDatabase(dir, n, 'discord', userId) : '',
    requestTemplateFile: templateFile,
    editIntervalMs: 1500,
  };
}

const botScript = (bot: Bot): string => (bot === 'bare' ? 'bare-discord-bot.ts' : 'sandpiper-bot.ts');

function runRound(
  bot: Bot,
  n: number,
  sequential: boolean,
  templateFile: string,
): Promise<RoundResult & { template?: unknown }> {
  return inRound(
    () => FakeDiscord.start(),
    'sandpiper-bench-',
    async (fake, llm, dir) => {
      const launch = await launchFor(bot, n, dir, fake.apiUrl, fake.token, llm.url, templateFile);
      const profile = profileDir
        ? ['--cpu-prof', '--cpu-prof-interval=25', `--cpu-prof-dir=${join(profileDir, bot)}`]
        : [];
      const child = await spawnBot(botScript(bot), launch, `${bot} bot`, profile);
      const users = Array.from({ length: n }, (_, k) => fake.user(userId(k), `bench${k}`));
      const result = await measureRound(discordPlatform(fake, users), llm, child, n, sequential);
      // With --profile too, each message's traced points go beside the bot's profile (profile-summary.ts --window).
      if (profileDir && result.trace)
        writeTraceWindows(join(profileDir, bot, `windows-${result.stats.pid}.json`), result.trace.windows);
      return { ...result, template: llm.firstBody };
    },
  );
}

function measuredRound(bot: Bot, n: number, sequential: boolean, templateFile: string): Promise<RoundResult> {
  if (!apart) return runRound(bot, n, sequential, templateFile);
  return measureApartRound(bot, n, sequential, botScript(bot), (fakes) =>
    launchFor(bot, n, fakes.dir, fakes.apiUrl, fakes.token, fakes.llmUrl, templateFile),
  );
}

async function main(): Promise<void> {
  // Warm-up (not measured): Sandpiper's own LLM request body becomes the one the bare bot sends.
  await withTemplateFile('sandpiper-bench-template-', {}, async (templateFile) => {
    const warm = await runRound('sandpiper', 1, true, templateFile);
    writeFileSync(templateFile, JSON.stringify(warm.template));
    console.log(
      `discord${apart ? ' (fakes apart)' : ''}: ${rounds} interleaved rounds per size; medians over rounds of per-round p50 / p95 (ms); lag and memory of the bot process`,
    );
    console.log(
      'N    | conversation    | bot       | inbound→LLM req     | last token→final    | loop lag p99/max | rss MB | heap MB',
    );
    for (const size of sizes) {
      const { n, sequential } = parseSize(size);
      const results = await interleaved(rounds, (bot) => measuredRound(bot, n, sequential, templateFile));
      printSize(
        { labelWidth: 15, lagWidth: 15 },
        size,
        '',
        results,
        (label, ours, bare) =>
          `${size.padEnd(5)} | ${label.padEnd(15)} | ratio     | ${`${(ours.first / bare.first).toFixed(2)}x (+${fmt(ours.first - bare.first)})`.padEnd(19)} | ` +
          `${`${(ours.final / bare.final).toFixed(2)}x (+${fmt(ours.final - bare.final)})`.padEnd(19)} |`,
      );
      if (trace) printTrace(size, results);
    }
  });
}

await main();
