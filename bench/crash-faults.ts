/**
 * Fault figures for crash-safe turns (ADR 0013): the real gateway process on fake Discord is killed with SIGKILL, again
 * and again, at a random point of a streamed answer ("mid-stream") or while an approved bash call runs ("mid-tool"),
 * then started again. Per fault kind it counts questions lost (never answered after the restart), answered twice, the
 * partial answer missing from the history, tool calls run twice, and tool processes that outlived the gateway.
 * "answered" kills at the turn log's commit points (docs/design/durability.md): right after the final edit of a
 * complete answer (the stream then hangs before its usage), or at a random moment from the mention to a little after
 * the answer; it counts questions with no complete answer, questions answered twice (two complete answers) and
 * duplicate history rows.
 *
 *   npm run bench:crash -- --rounds=10 [--kinds=stream,tool,answered] [--warm=N] [--database=postgres://… [--takeover]]
 *
 * `--database` runs the gateway on PostgreSQL (a fresh database on that server, dropped at the end), restarted on the
 * same data; with `--takeover` two instances share it and each round puts three questions in flight and kills the
 * instance holding them: the other must finish them (bench/support/takeover-rounds.ts, bench/support/crash-instances.ts;
 * `--kinds` and `--warm` apply to the single-instance rounds only).
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { INTERRUPTED_MARKER, INTERRUPTED_TOOL_RESULT } from '../src/shared/interruption.js';
import { FakeDiscord, type FakeMessage } from '../test/fakes/fake-discord.js';
import { startFakeLlmServer } from '../test/fakes/fake-llm-server.js';
import { waitFor } from '../test/fakes/mcp-servers.js';
import { CrashInstances } from './support/crash-instances.js';
import { sleeps } from './support/sleep-processes.js';
import { runTakeover } from './support/takeover-rounds.js';

const CHANNEL = '300000000000000001';
const arg = (name: string, fallback: string): string =>
  process.argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3) ?? fallback;
const rounds = Number(arg('rounds', '10'));
const kinds = new Set(arg('kinds', 'stream,tool,answered').split(','));

interface Tally {
  rounds: number;
  lost: number;
  duplicated: number;
  partialMissing: number;
  toolRanTwice: number;
  orphans: number;
}

const blank = (): Tally => ({ rounds: 0, lost: 0, duplicated: 0, partialMissing: 0, toolRanTwice: 0, orphans: 0 });

async function main(): Promise<void> {
  const [discord, llm] = await Promise.all([FakeDiscord.start(), startFakeLlmServer()]);
  const takeover = process.argv.includes('--takeover');
  const gateways = await CrashInstances.open(discord, llm, arg('database', ''), takeover);
  if (takeover) {
    await runTakeover({ discord, llm, gateways, rounds }).finally(() =>
      Promise.allSettled([discord.close(), llm.close()]),
    );
    return;
  }
  const user = discord.user('400000000000000041', 'gus');
  const bot = (threadId: string): FakeMessage[] =>
    discord.state.messagesIn(threadId).filter((message) => message.author.id === discord.state.bot.id);
  const sent = (index: number): string => JSON.stringify(llm.requests[index]?.body ?? {});
  const mention = async (text: string): Promise<string> => {
    const message = discord.state.injectMessage(CHANNEL, user, text, true);
    await discord.waitFor(() => discord.state.channels.get(message.id), 30_000, 'thread');
    return message.id;
  };
  /** Messages showing one of `answers` complete (the resumed answer, or an answer committed before the kill). */
  const answeredCount = async (threadId: string, ...answers: string[]): Promise<number> => {
    const shows = (message: FakeMessage): boolean =>
      answers.includes(message.content) && message.components.length === 0;
    await waitFor(() => bot(threadId).some(shows), answers[0] ?? '', 30_000).catch(() => undefined);
    // Anything answered twice would show up within the settling of the journal.
    await waitFor(
      async () => (await gateways.db()('turn_journal').count({ n: '*' }))[0]?.n === 0,
      'journal settled',
      30_000,
    ).catch(() => undefined);
    return bot(threadId).filter(shows).length;
  };
  const stream = blank();
  const tool = blank();
  const answered = blank();
  /** Rows of the thread's history with the same role and text as an earlier row. */
  const duplicateRows = async (threadId: string): Promise<number> => {
    const route = await gateways.stores().routes.getRoute('discord', threadId);
    const rows = (await gateways
      .db()('conversations')
      .where({ ws_id: route?.wsId ?? '' })
      .select('role', 'content')) as Array<{ role: string; content: string }>;
    return rows.length - new Set(rows.map((row) => `${row.role}\n${row.content}`)).size;
  };
  /** What a lost round left behind: the ledger row of the mention, the thread's route and its history. */
  const lostState = async (threadId: string): Promise<Record<string, unknown>> => {
    const db = gateways.db();
    const claims = (await db('inbound_events').where({ message_id: threadId }).count({ n: '*' }))[0]?.n;
    const route = await gateways.stores().routes.getRoute('discord', threadId);
    const rows = (await db('conversations')
      .where({ ws_id: route?.wsId ?? '' })
      .select('role')) as Array<{ role: string }>;
    // Which questions the latest model requests were for (a request too many shifts the scripted answers).
    const asked = llm.requests
      .slice(-5)
      .map((request) => JSON.stringify(request.body).match(/(?:answered|stream|tool) round \d+/)?.[0] ?? '?');
    return {
      claims,
      routed: route !== undefined,
      history: rows.map((row) => row.role).join(','),
      botMessages: bot(threadId).length,
      asked,
    };
  };
  const answeredRound = async (round: number): Promise<void> => {
    const words = Array.from({ length: 20 }, (_, index) => `a${round}x${index} `);
    const full = words.join('');
    const again = `answered again ${round}`;
    llm.fallback = () => ({ text: again });
    const afterEdit = round % 2 === 0;
    llm.enqueue({ text: words, delayMs: 10, ...(afterEdit ? { hangAfterStop: true } : {}) });
    const threadId = await mention(`answered round ${round}`);
    const complete = (message: FakeMessage): boolean => message.content === full && message.components.length === 0;
    // Not shown within the wait (the gateway did not answer before the kill): counted below like any other round.
    if (afterEdit)
      await discord.waitFor(() => bot(threadId).find(complete), 30_000, 'the final edit').catch(() => undefined);
    else await new Promise((resolve) => setTimeout(resolve, Math.floor(Math.random() * 400)));
    await gateways.kill();
    await gateways.recover();
    await waitFor(
      async () => (await gateways.db()('turn_journal').count({ n: '*' }))[0]?.n === 0,
      'journal settled',
      30_000,
    ).catch(() => undefined);
    await waitFor(
      () => bot(threadId).some((message) => complete(message) || message.content === again),
      'an answer',
      30_000,
    ).catch(() => undefined);
    const shown = bot(threadId).filter((message) => complete(message) || message.content === again).length;
    answered.rounds++;
    if (shown === 0) {
      answered.lost++;
      process.stderr.write(`round ${round}: lost; ${JSON.stringify(await lostState(threadId))}\n`);
    }
    if (shown > 1) answered.duplicated++;
    answered.partialMissing += await duplicateRows(threadId);
    llm.fallback = undefined;
    await gateways.settle();
  };
  try {
    await gateways.start();
    await gateways.linkUser('discord', '400000000000000041', 'gus');
    // `--warm=N`: N conversations answered without a kill first (a database that holds many threads already).
    for (let index = 0; index < Number(arg('warm', '0')); index++) {
      llm.enqueue({ text: `warm ${index}` });
      const threadId = await mention(`warm-up ${index}`);
      await discord.waitFor(
        () => bot(threadId).some((message) => message.content === `warm ${index}`),
        30_000,
        'a warm-up answer',
      );
    }
    for (let round = 0; round < rounds; round++) {
      if (kinds.has('answered')) await answeredRound(round);
      if (!kinds.has('stream') && !kinds.has('tool')) {
        process.stderr.write(`round ${round + 1}/${rounds} done\n`);
        continue;
      }
      // Mid-stream: killed after a random number of words reached the thread.
      const shownWords = 2 + Math.floor(Math.random() * 20);
      const first = llm.requests.length;
      const streamed = Array.from({ length: 60 }, (_, index) => `w${round}x${index} `);
      llm.enqueue({ text: streamed, delayMs: 60 });
      const threadId = await mention(`stream round ${round}`);
      await discord.waitFor(
        () => bot(threadId).some((message) => message.content.includes(`w${round}x${shownWords} `)),
        30_000,
        'streaming',
      );
      await gateways.kill();
      // The resumed turn's answer (a fallback, not a script: when the thread showed the words late, the answer may have
      // been committed before the kill, and the restart shows it instead of asking again).
      const answer = `answer of stream round ${round}`;
      llm.fallback = () => ({ text: answer });
      await gateways.recover();
      const answered = await answeredCount(threadId, answer, streamed.join('').trim(), streamed.join(''));
      const resumed = bot(threadId).some((message) => message.content === answer);
      llm.fallback = undefined;
      stream.rounds++;
      if (answered === 0) {
        stream.lost++;
        process.stderr.write(
          `round ${round}: stream question lost; ${JSON.stringify(await lostState(threadId))}\n${gateways.problems().slice(-8).join('\n')}\n`,
        );
      }
      if (answered > 1 || llm.requests.length > first + 2) stream.duplicated++;
      if (resumed && (!sent(first + 1).includes(INTERRUPTED_MARKER) || !sent(first + 1).includes(`w${round}x0 `)))
        stream.partialMissing++;
      await gateways.settle();

      // Mid-tool: killed while an approved bash call sleeps between its two side effects.
      const marker = `91.${String(1000 + round)}`;
      const toolFirst = llm.requests.length;
      llm.enqueue({
        toolCalls: [
          {
            id: `call_r${round}`,
            name: 'bash',
            arguments: JSON.stringify({ command: `echo start >> runs.log; sleep ${marker}; echo end >> runs.log` }),
          },
        ],
      });
      const toolThread = await mention(`tool round ${round}`);
      const card = await discord
        .waitFor(
          () => bot(toolThread).find((message) => JSON.stringify(message.components).includes('Approve')),
          30_000,
          'card',
        )
        .catch(() => undefined);
      if (card === undefined) {
        // No card: lost when nothing answered the question; answered otherwise (the scripted tool call went to another
        // turn, a resumed one of the round before). Either way the round goes on without its kill.
        const state = await lostState(toolThread);
        if (!String(state.history).includes('assistant')) tool.lost++;
        process.stderr.write(`round ${round}: no approval card for the tool question; ${JSON.stringify(state)}\n`);
        continue;
      }
      const approve = JSON.stringify(card.components).match(/"custom_id":"([^"]*approve[^"]*)"/)?.[1] ?? '';
      discord.state.clickButton(card.id, approve, user);
      const route = await gateways.stores().routes.getRoute('discord', toolThread);
      const log = path.join(gateways.dir, 'data', 'workspaces', route?.wsId ?? 'missing', 'runs.log');
      await waitFor(() => existsSync(log) && sleeps(marker) === 1, 'the command to run', 30_000);
      await gateways.kill();
      await waitFor(() => sleeps(marker) === 0, 'the command to die', 10_000).catch(() => undefined);
      if (sleeps(marker) > 0) tool.orphans++;
      const toolAnswer = `answer of tool round ${round}`;
      llm.fallback = () => ({ text: toolAnswer });
      await gateways.recover();
      const toolAnswered = await answeredCount(toolThread, toolAnswer);
      llm.fallback = undefined;
      tool.rounds++;
      if (toolAnswered === 0) {
        tool.lost++;
        process.stderr.write(
          `round ${round}: tool question lost; ${JSON.stringify(await lostState(toolThread))}\n${gateways.problems().slice(-8).join('\n')}\n`,
        );
      }
      if (toolAnswered > 1 || llm.requests.length > toolFirst + 2) tool.duplicated++;
      if (!sent(toolFirst + 1).includes(INTERRUPTED_TOOL_RESULT)) tool.partialMissing++;
      const runs = readFileSync(log, 'utf8')
        .split('\n')
        .filter((line) => line === 'start').length;
      if (runs !== 1) tool.toolRanTwice++;
      if (readFileSync(log, 'utf8').includes('end')) tool.orphans++;
      await gateways.settle();
      process.stderr.write(`round ${round + 1}/${rounds} done\n`);
    }
  } finally {
    await gateways.close();
    await Promise.allSettled([discord.close(), llm.close()]);
  }
  console.log(
    'fault kind  | rounds | lost | answered twice | not in history | tool ran twice | tool outlived the gateway',
  );
  console.log(
    '----------- | ------ | ---- | -------------- | -------------- | -------------- | -------------------------',
  );
  console.log('(answered: "not in history" counts duplicate history rows instead)');
  for (const [name, tally] of [
    ['mid-stream', stream],
    ['mid-tool', tool],
    ['answered', answered],
  ] as const) {
    if (tally.rounds === 0) continue;
    console.log(
      `${name.padEnd(11)} | ${String(tally.rounds).padStart(6)} | ${String(tally.lost).padStart(4)} | ${String(tally.duplicated).padStart(14)} | ${String(tally.partialMissing).padStart(14)} | ${String(tally.toolRanTwice).padStart(14)} | ${String(tally.orphans).padStart(25)}`,
    );
  }
}

await main();
