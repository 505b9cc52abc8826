/**
 * The takeover mode of the crash fuzzer (`npm run bench:crash -- --database=postgres://… --takeover`). Two instances
 * share one fresh PostgreSQL database (bench/support/crash-instances.ts). Each round puts three questions in flight,
 * each in its own thread: one killed mid-stream (after a random number of words), one while its approved bash call
 * sleeps between its two side effects, and one killed right after the final edit of its complete answer (even rounds)
 * or at a random moment after its thread opened (odd rounds). Then one SIGKILL hits the instance holding the Discord
 * shard, the other must take over and finish all three, and the killed one starts again as the standby while the
 * round is counted. Per question: lost (no complete answer), answered twice (two complete answers, or the model asked
 * again after its answer), duplicate history rows, the resumed request without the interruption marker or the
 * interrupted tool result, the tool run twice, and the tool process outliving its gateway.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { INTERRUPTED_MARKER, INTERRUPTED_TOOL_RESULT } from '../../src/shared/interruption.js';
import type { FakeDiscord, FakeMessage } from '../../test/fakes/fake-discord.js';
import type { FakeLlmServer } from '../../test/fakes/fake-llm-server.js';
import { waitFor } from '../../test/fakes/mcp-servers.js';
import type { CrashInstances } from './crash-instances.js';
import { sleeps } from './sleep-processes.js';
import { printTakeover, type TakeoverTally, blankTakeover } from './takeover-tally.js';
import {
  answerWords,
  question,
  recoveryAnswer,
  sleepMarker,
  streamWords,
  TakeoverScript,
  type QuestionKind,
} from './takeover-script.js';

const CHANNEL = '300000000000000001';
const USER_ID = '400000000000000041';

export interface TakeoverOptions {
  discord: FakeDiscord;
  llm: FakeLlmServer;
  gateways: CrashInstances;
  rounds: number;
}

interface Threads {
  stream: string;
  tool: string | undefined;
  answered: string;
  log: string;
}

class TakeoverFuzzer {
  readonly tally: TakeoverTally = blankTakeover();
  private readonly script = new TakeoverScript();
  private readonly user;
  /** The killed instance's restart: resolves with its failure, if any (checked before the next kill). */
  private relaunching: Promise<unknown> = Promise.resolve(undefined);

  constructor(private readonly options: TakeoverOptions) {
    this.user = options.discord.user(USER_ID, 'gus');
    options.llm.fallback = (body) => this.script.respond(body);
  }

  async round(round: number): Promise<void> {
    const started = Date.now();
    const [tool, stream] = await Promise.all([this.toolReady(round), this.streamReady(round)]);
    const answered = await this.answeredReady(round);
    const threads: Threads = { stream, tool: tool?.threadId, answered, log: tool?.log ?? '' };
    const readyMs = Date.now() - started;
    // The instance killed last round must be up again as the standby before this kill.
    await this.relaunched();
    const kill = await this.options.gateways.killShardHolder([stream, tool?.threadId ?? '', answered]);
    const killedAt = Date.now();
    await this.options.gateways.failedOver();
    const failoverMs = Date.now() - killedAt;
    // Started again while this round is counted and the next one set up (the survivor holds everything by now).
    this.relaunching = this.options.gateways.relaunch().then(
      () => undefined,
      (error: unknown) => error,
    );
    await this.count(round, threads);
    this.tally.rounds++;
    this.tally.heldByKilled += kill.held;
    this.tally.failoverMs.push(failoverMs);
    this.tally.roundMs.push(Date.now() - started);
    process.stderr.write(
      `round ${round + 1}/${this.options.rounds}: killed instance ${kill.index} holding ${kill.held}/3 questions; ` +
        `set-up ${readyMs} ms, failover ${failoverMs} ms, counted after ${Date.now() - killedAt} ms\n`,
    );
  }

  /** Waits for the last relaunch; its failure ends the run. */
  async relaunched(): Promise<void> {
    const failure = await this.relaunching;
    this.relaunching = Promise.resolve(undefined);
    if (failure !== undefined) throw failure instanceof Error ? failure : new Error(String(failure));
  }

  private bot(threadId: string): FakeMessage[] {
    const { state } = this.options.discord;
    return state.messagesIn(threadId).filter((message) => message.author.id === state.bot.id);
  }

  private async mention(kind: QuestionKind, round: number): Promise<string> {
    const { discord } = this.options;
    const message = discord.state.injectMessage(CHANNEL, this.user, question(kind, round), true);
    await discord.waitFor(() => discord.state.channels.get(message.id), 30_000, 'thread');
    return message.id;
  }

  private async streamReady(round: number): Promise<string> {
    const shownWords = 2 + Math.floor(Math.random() * 40);
    const threadId = await this.mention('stream', round);
    const word = `w${round}x${shownWords} `;
    await this.options.discord
      .waitFor(() => this.bot(threadId).some((message) => message.content.includes(word)), 30_000, 'streaming')
      .catch(() => process.stderr.write(`round ${round}: the stream did not reach word ${shownWords}\n`));
    return threadId;
  }

  /** The bash call approved and sleeping; undefined (reported) when no approval card came. */
  private async toolReady(round: number): Promise<{ threadId: string; log: string } | undefined> {
    const { discord, gateways } = this.options;
    const threadId = await this.mention('tool', round);
    const approvable = (message: FakeMessage): boolean => JSON.stringify(message.components).includes('Approve');
    const card = await discord
      .waitFor(() => this.bot(threadId).find(approvable), 30_000, 'card')
      .catch(() => undefined);
    if (card === undefined) {
      this.tally.setupFailures++;
      process.stderr.write(`round ${round}: no approval card; ${JSON.stringify(await this.state(threadId))}\n`);
      return undefined;
    }
    const approve = JSON.stringify(card.components).match(/"custom_id":"([^"]*approve[^"]*)"/)?.[1] ?? '';
    discord.state.clickButton(card.id, approve, this.user);
    const route = await gateways.stores().routes.getRoute('discord', threadId);
    const log = path.join(gateways.dir, 'data', 'workspaces', route?.wsId ?? 'missing', 'runs.log');
    await waitFor(() => existsSync(log) && sleeps(sleepMarker(round)) === 1, 'the command to run', 30_000);
    return { threadId, log };
  }

  private async answeredReady(round: number): Promise<string> {
    const threadId = await this.mention('answered', round);
    const full = answerWords(round).join('');
    if (round % 2 === 0) {
      const complete = (message: FakeMessage): boolean => message.content === full && message.components.length === 0;
      await this.options.discord
        .waitFor(() => this.bot(threadId).find(complete), 30_000, 'the final edit')
        .catch(() => process.stderr.write(`round ${round}: the final edit did not show before the kill\n`));
    } else await new Promise((resolve) => setTimeout(resolve, Math.floor(Math.random() * 400))); // a random kill moment
    return threadId;
  }

  /** Complete answers shown in the thread: messages whose whole text is one of `answers`, with no buttons left. */
  private shown(threadId: string, answers: string[]): number {
    return this.bot(threadId).filter((message) => answers.includes(message.content) && message.components.length === 0)
      .length;
  }

  private async count(round: number, threads: Threads): Promise<void> {
    const full = streamWords(round).join('');
    const answers: Array<[QuestionKind, string | undefined, string[]]> = [
      ['stream', threads.stream, [recoveryAnswer('stream', round), full, full.trim()]],
      ['tool', threads.tool, [recoveryAnswer('tool', round)]],
      ['answered', threads.answered, [recoveryAnswer('answered', round), ...fullAndTrimmed(answerWords(round))]],
    ];
    const toolDied = waitFor(() => sleeps(sleepMarker(round)) === 0, 'the command to die', 10_000).catch(
      () => undefined,
    );
    for (const [, threadId, texts] of answers)
      if (threadId !== undefined)
        await waitFor(() => this.shown(threadId, texts) > 0, 'an answer', 30_000).catch(() => undefined);
    await this.journalSettled();
    await toolDied;
    for (const [kind, threadId, texts] of answers)
      if (threadId !== undefined) await this.check(round, kind, threadId, texts);
    if (threads.tool !== undefined) this.checkTool(round, threads.log);
  }

  private async check(round: number, kind: QuestionKind, threadId: string, texts: string[]): Promise<void> {
    const shown = this.shown(threadId, texts);
    const requests = this.script.requests(kind, round);
    this.tally.questions++;
    if (shown === 0) {
      this.tally.lost++;
      process.stderr.write(`round ${round}: ${kind} question lost; ${JSON.stringify(await this.state(threadId))}\n`);
      process.stderr.write(`${this.options.gateways.problems().slice(-8).join('\n')}\n`);
    }
    if (shown > 1 || requests.length > 2) {
      this.tally.duplicated++;
      process.stderr.write(
        `round ${round}: ${kind} question answered twice (${shown} shown, ${requests.length} asked)\n`,
      );
    }
    this.tally.duplicateRows += await this.duplicateRows(threadId);
    const resumed = requests[1];
    const carried =
      kind === 'tool'
        ? resumed?.includes(INTERRUPTED_TOOL_RESULT)
        : kind === 'stream' && resumed !== undefined
          ? resumed.includes(INTERRUPTED_MARKER) && resumed.includes(`w${round}x0 `)
          : true;
    if (carried !== true) {
      this.tally.partialMissing++;
      process.stderr.write(`round ${round}: the resumed ${kind} request lacks the interruption\n`);
    }
  }

  private checkTool(round: number, log: string): void {
    if (sleeps(sleepMarker(round)) > 0) this.tally.orphans++;
    const text = existsSync(log) ? readFileSync(log, 'utf8') : '';
    const runs = text.split('\n').filter((line) => line === 'start').length;
    if (runs !== 1) {
      this.tally.toolRanTwice++;
      process.stderr.write(`round ${round}: the tool ran ${runs} times\n`);
    }
    if (text.includes('end')) this.tally.orphans++;
  }

  private async journalSettled(): Promise<void> {
    const db = this.options.gateways.db();
    await waitFor(async () => (await db('turn_journal').count({ n: '*' }))[0]?.n == 0, 'journal settled', 30_000).catch(
      () => process.stderr.write('the turn journal did not settle within 30 s\n'),
    );
  }

  /** Rows of the thread's history with the same role and text as an earlier row. */
  private async duplicateRows(threadId: string): Promise<number> {
    const { gateways } = this.options;
    const route = await gateways.stores().routes.getRoute('discord', threadId);
    const rows = (await gateways
      .db()('conversations')
      .where({ ws_id: route?.wsId ?? '' })
      .select('role', 'content')) as Array<{ role: string; content: string }>;
    return rows.length - new Set(rows.map((row) => `${row.role}\n${row.content}`)).size;
  }

  /** What a round that went wrong left behind: the mention's ledger rows, the route, the history, the bot's posts. */
  private async state(threadId: string): Promise<Record<string, unknown>> {
    const { gateways } = this.options;
    const db = gateways.db();
    const claims = (await db('inbound_events').where({ message_id: threadId }).count({ n: '*' }))[0]?.n;
    const route = await gateways.stores().routes.getRoute('discord', threadId);
    const rows = (await db('conversations')
      .where({ ws_id: route?.wsId ?? '' })
      .select('role')) as Array<{ role: string }>;
    const posts = this.bot(threadId).map((message) => message.content.slice(0, 40));
    return { claims, routed: route !== undefined, history: rows.map((row) => row.role).join(','), posts };
  }
}

function fullAndTrimmed(words: string[]): string[] {
  const full = words.join('');
  return [full, full.trim()];
}

/** Runs `rounds` takeover rounds (one kill each) and prints the figures. */
export async function runTakeover(options: TakeoverOptions): Promise<void> {
  const { gateways } = options;
  const started = Date.now();
  const fuzzer = new TakeoverFuzzer(options);
  try {
    await gateways.start();
    await gateways.linkUser('discord', USER_ID, 'gus');
    for (let round = 0; round < options.rounds; round++) await fuzzer.round(round);
  } finally {
    // A restart still under way must finish before close() can stop it.
    await fuzzer.relaunched().catch((error: unknown) => process.stderr.write(`restart failed: ${String(error)}\n`));
    await gateways.close();
    printTakeover(fuzzer.tally, Date.now() - started);
  }
}
