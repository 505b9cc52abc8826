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
 * Each delivery is run too: `socket` (Socket Mode) and `http` (the fake POSTs signed requests to `/slack/events`; the
 * bare app runs bolt's HTTPReceiver, Sandpiper its own receiver on the gateway's server).
 *
 *   npm run bench:slack -- --sizes=1x20,100 --rounds=3 --modes=stream,edit --delivery=socket,http
 */
import { writeFileSync } from 'node:fs';
import { BOT_USER_ID, FakeSlack, type FakeSlackUser } from '../test/fakes/fake-slack.js';
import { FakeSlackHttp } from '../test/fakes/fake-slack-http.js';
import {
  arg,
  inRound,
  interleaved,
  parseSize,
  prepareDatabase,
  signed,
  spawnBot,
  withTemplateFile,
  type Bot,
} from './support/bench-run.js';
import { measureRound, printSize, type PhasePlatform, type RoundResult } from './support/latency-rounds.js';
import type { SlackBotLaunch } from './support/slack-bot-launch.js';

const CHANNEL = 'C0BENCH';
const sizes = arg('sizes', '1x20,100').split(',');
const rounds = Number(arg('rounds', '3'));
const modes = arg('modes', 'stream,edit').split(',') as SlackBotLaunch['mode'][];
const deliveries = arg('delivery', 'socket,http').split(',') as SlackBotLaunch['delivery'][];
const SIGNING_SECRET = 'bench-signing-secret';
const userId = (k: number): string => `U0B${String(k).padStart(6, '0')}`;

/** The answer text a final call shows: an update's or post's text, or the stopped stream message's text. */
function shownBy(fake: FakeSlack, call: FakeSlack['calls'][number]): string | undefined {
  if (call.method === 'chat.update' || call.method === 'chat.postMessage')
    return typeof call.body.text === 'string' ? call.body.text : undefined;
  if (call.method === 'chat.stopStream') return fake.state.find(String(call.body.channel), String(call.body.ts))?.text;
  return undefined;
}

/** Events sent through the fake's Socket Mode; a final answer is the call that shows the whole answer. */
function slackPlatform(fake: FakeSlack, users: FakeSlackUser[]): PhasePlatform {
  return {
    what: 'final calls',
    send: (k, key, index, threads) => {
      const text = index === 0 ? `<@${BOT_USER_ID}> bench-${key} please answer` : `bench-${key} please answer`;
      const { message } = fake.userMessage(
        users[k] as FakeSlackUser,
        CHANNEL,
        text,
        index === 0 ? undefined : threads[k],
      );
      if (index === 0) threads[k] = message.ts;
    },
    scanner: (expected, finalAt) => {
      let scanned = 0;
      return () => {
        for (; scanned < fake.calls.length; scanned++) {
          const call = fake.calls[scanned];
          const text = call ? shownBy(fake, call) : undefined;
          const key = text === undefined ? undefined : expected.get(text);
          if (key !== undefined && call?.hr !== undefined && (call.method !== 'chat.postMessage' || !finalAt.has(key)))
            finalAt.set(key, call.hr);
        }
      };
    },
  };
}

function runRound(
  bot: Bot,
  kind: { mode: SlackBotLaunch['mode']; delivery: SlackBotLaunch['delivery'] },
  n: number,
  sequential: boolean,
  templateFile: string,
): Promise<RoundResult & { template?: unknown }> {
  const { mode, delivery } = kind;
  return inRound(
    () => FakeSlack.start(),
    'sandpiper-bench-slack-',
    async (fake, llm, dir) => {
      fake.streams.rules.enabled = mode === 'stream';
      const launch: SlackBotLaunch = {
        slackApiUrl: fake.apiUrl,
        botToken: fake.botToken,
        appToken: fake.appToken,
        llmUrl: llm.url,
        mode,
        dataDir: dir,
        databaseUrl: bot === 'sandpiper' ? await prepareDatabase(dir, n, 'slack', userId) : '',
        requestTemplateFile: templateFile,
        editIntervalMs: 1500,
        delivery,
        signingSecret: SIGNING_SECRET,
      };
      const child = await spawnBot(
        bot === 'bare' ? 'bare-slack-bot.ts' : 'sandpiper-slack-bot.ts',
        launch,
        `${bot} slack app`,
      );
      if (delivery === 'http') fake.http = new FakeSlackHttp(`${child.ready.url ?? ''}/slack/events`, SIGNING_SECRET);
      const users = Array.from({ length: n }, (_, k) => fake.user(userId(k), `bench${k}`));
      const result = await measureRound(slackPlatform(fake, users), llm, child, n, sequential);
      return { ...result, template: llm.firstBody };
    },
  );
}

async function main(): Promise<void> {
  // Warm-up (not measured): Sandpiper's own LLM request body becomes the one the bare app sends.
  await withTemplateFile('sandpiper-bench-slack-template-', {}, async (templateFile) => {
    const warm = await runRound('sandpiper', { mode: 'edit', delivery: 'socket' }, 1, true, templateFile);
    writeFileSync(templateFile, JSON.stringify(warm.template));
    console.log(
      `slack: ${rounds} interleaved rounds per size and mode; medians over rounds of per-round p50 / p95 (ms); lag and memory of the bot process`,
    );
    console.log(
      'N     | delivery mode / conversation    | bot       | inbound→LLM req     | last token→final    | loop lag p99/max | rss MB | heap MB',
    );
    for (const delivery of deliveries) {
      for (const mode of modes) {
        for (const size of sizes) {
          const { n, sequential } = parseSize(size);
          const results = await interleaved(rounds, (bot) =>
            runRound(bot, { mode, delivery }, n, sequential, templateFile),
          );
          printSize(
            { labelWidth: 32, lagWidth: 16 },
            size,
            `${delivery} ${mode} / `,
            results,
            (label, ours, bare) =>
              `${size.padEnd(5)} | ${label.padEnd(32)} | added     | ${`${signed(ours.first - bare.first)} (${(ours.first / bare.first).toFixed(2)}x)`.padEnd(19)} | ` +
              `${`${signed(ours.final - bare.final)} (${(ours.final / bare.final).toFixed(2)}x)`.padEnd(19)} |`,
          );
        }
      }
    }
  });
}

await main();
