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
import { FakeDiscord } from '../test/fakes/fake-discord.js';
import { answerFor } from './support/bench-llm.js';
import {
  arg,
  forkBot,
  inRound,
  interleaved,
  median,
  prepareDatabase,
  waitUntil,
  withTemplateFile,
  type Bot,
} from './support/bench-run.js';
import type { BotLaunch } from './support/bot-launch.js';

const CHANNEL = '300000000000000001';
const messages = Number(arg('messages', '100'));
const rounds = Number(arg('rounds', '5'));
const userId = (k: number): string => String(500000000000000000n + BigInt(k));
const POLL_MS = 5;

/** One round: N mentions written while no bot runs, then the bot starts; resolves with [turns started, answered] in ms from READY. */
function runRound(bot: Bot, n: number, templateFile: string): Promise<[number, number]> {
  return inRound(
    () => FakeDiscord.start(),
    'sandpiper-bench-catch-up-',
    async (fake, llm, dir) => {
      const launch: BotLaunch = {
        discordApiUrl: fake.apiUrl,
        discordToken: fake.token,
        llmUrl: llm.url,
        globalRequestsPerSecond: 1_000_000,
        dataDir: dir,
        databaseUrl: bot === 'sandpiper' ? await prepareDatabase(dir, n, 'discord', userId) : '',
        requestTemplateFile: templateFile,
        editIntervalMs: 1500,
        ...(bot === 'bare' ? { catchUpChannel: CHANNEL } : {}),
      };
      const expected = new Set<string>();
      for (let k = 0; k < n; k++) {
        fake.state.injectMessage(CHANNEL, fake.user(userId(k), `bench${k}`), `bench-${k}-0 please answer`, true);
        expected.add(answerFor(`${k}-0`));
      }
      const child = forkBot(bot === 'bare' ? 'bare-discord-bot.ts' : 'sandpiper-bot.ts', launch);
      await waitUntil(() => fake.gateway.readyAt > 0, 60_000, 'READY', POLL_MS);
      await waitUntil(() => llm.requestAt.size >= n, 600_000, 'every turn started', POLL_MS);
      const started = Math.max(...llm.requestAt.values()) - fake.gateway.readyAt;
      let answeredAt = 0;
      let scanned = 0;
      await waitUntil(
        () => {
          for (; scanned < fake.requests.length; scanned++) {
            const request = fake.requests[scanned];
            const content = (request?.body as { content?: unknown } | undefined)?.content;
            if (request && typeof content === 'string' && expected.delete(content)) answeredAt = request.hr;
          }
          return expected.size === 0;
        },
        600_000,
        'every final answer',
        POLL_MS,
      );
      await child.stop();
      return [started, answeredAt - fake.gateway.readyAt] as [number, number];
    },
  );
}

async function main(): Promise<void> {
  const template = { model: 'bench', messages: [{ role: 'system', content: 'You are a benchmark.' }] };
  const results = await withTemplateFile('sandpiper-bench-template-', template, async (templateFile) => {
    // Warm-up (not measured): disk caches and tsx's compile cache for both bots.
    for (const bot of ['bare', 'sandpiper'] as const) await runRound(bot, 5, templateFile);
    return interleaved(rounds, (bot) => runRound(bot, messages, templateFile));
  });
  console.log(
    `catch-up of ${messages} missed mentions: ${rounds} interleaved rounds, medians (ms from READY); each answer streams 30 tokens 10 ms apart`,
  );
  console.log('bot       | all turns started | all answered');
  for (const bot of ['bare', 'sandpiper'] as const) {
    const started = median(results[bot].map((r) => r[0]));
    const answered = median(results[bot].map((r) => r[1]));
    console.log(`${bot.padEnd(9)} | ${started.toFixed(0).padStart(17)} | ${answered.toFixed(0).padStart(12)}`);
  }
}

await main();
