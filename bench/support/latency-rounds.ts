/** The conversation benchmarks' shared measurement (bench:discord, bench:slack): phases of messages, rounds, table rows. */
import type { BenchLlm } from './bench-llm.js';
import { answerFor } from './bench-llm.js';
import { fmt, median, pct, waitUntil, type Bot, type BotProcess } from './bench-run.js';
import type { BotStats } from './bot-stats.js';
import {
  assembleTrace,
  summarizeTrace,
  type MessageTimes,
  type TraceSummary,
  type TraceWindows,
} from './trace-assembly.js';

export interface PhaseResult {
  firstMs: number[];
  finalMs: number[];
  /** Each message as the fakes saw it (`--trace`). */
  messages: MessageTimes[];
}
export interface RoundResult {
  phases: [PhaseResult, PhaseResult];
  stats: BotStats;
  /** With `--trace` on a sequential size: medians per point (trace-assembly.ts), and each message's points. */
  trace?: { summary: TraceSummary; windows: TraceWindows };
}

export interface PhasePlatform {
  /** Sends message `index` (0: the mention that opens a thread, 1: the follow-up in `threads[k]`) for user k. */
  send: (k: number, key: string, index: 0 | 1, threads: string[]) => void;
  /** A fresh scanner per phase: each call reads the fake's requests not yet read and records in `finalAt` when a final answer (`expected` text → key) arrived. */
  scanner: (expected: ReadonlyMap<string, string>, finalAt: Map<string, number>) => () => void;
  what: string;
}

/** When each message was sent and its final answer arrived (ms of one clock), by key. */
export interface DrivenPhase {
  sentAt: Map<string, number>;
  finalAt: Map<string, number>;
}

export const phaseKey = (tag: string, k: number, index: 0 | 1): string => `${tag}${k}-${index}`;

/** Sends one message per thread (all at once, or one after another) and waits for every final answer. */
export async function drivePhase(
  platform: PhasePlatform,
  users: number,
  threads: string[],
  index: 0 | 1,
  sequential: boolean,
  tag = '',
): Promise<DrivenPhase> {
  const sentAt = new Map<string, number>();
  const finalAt = new Map<string, number>();
  const expected = new Map(
    Array.from({ length: users }, (_, k) => [answerFor(phaseKey(tag, k, index)), phaseKey(tag, k, index)] as const),
  );
  const scan = platform.scanner(expected, finalAt);
  const arrived = (count: number): Promise<void> =>
    waitUntil(
      () => {
        scan();
        return finalAt.size >= count;
      },
      600_000,
      platform.what,
    );
  for (let k = 0; k < users; k++) {
    const key = phaseKey(tag, k, index);
    sentAt.set(key, performance.now());
    platform.send(k, key, index, threads);
    // Sequential mode: one conversation at a time, so the figures are per-message overhead without queueing.
    if (sequential) await arrived(k + 1);
  }
  await arrived(users);
  return { sentAt, finalAt };
}

/** Per message: sent → model request arrived, and last token written → final answer arrived (all on one clock). */
export function phaseResult(
  driven: DrivenPhase,
  llm: Pick<BenchLlm, 'requestAt' | 'lastTokenAt'>,
  index: 0 | 1,
): PhaseResult {
  const result: PhaseResult = { firstMs: [], finalMs: [], messages: [] };
  for (const [key, sent] of driven.sentAt) {
    result.firstMs.push((llm.requestAt.get(key) ?? Number.NaN) - sent);
    result.finalMs.push((driven.finalAt.get(key) ?? Number.NaN) - (llm.lastTokenAt.get(key) ?? Number.NaN));
    const kind = index === 0 ? 'new thread' : 'existing thread';
    result.messages.push({
      kind,
      sent,
      request: llm.requestAt.get(key),
      lastToken: llm.lastTokenAt.get(key),
      final: driven.finalAt.get(key),
    });
  }
  return result;
}

/** Sends one message per thread (all at once, or one after another) and waits for every final answer. */
export async function phase(
  platform: PhasePlatform,
  llm: BenchLlm,
  users: number,
  threads: string[],
  index: 0 | 1,
  sequential: boolean,
  tag = '',
): Promise<PhaseResult> {
  return phaseResult(await drivePhase(platform, users, threads, index, sequential, tag), llm, index);
}

/** One measured round against a started bot: warm-up, new threads, follow-ups, the bot's stats; stops the bot. */
export async function measureRound(
  platform: PhasePlatform,
  llm: BenchLlm,
  child: BotProcess,
  n: number,
  sequential: boolean,
): Promise<RoundResult> {
  // Warm-up (not measured): connections, JIT and lazy module loading of both bots happen here.
  const warmThreads: string[] = [];
  for (const index of [0, 1] as const) await phase(platform, llm, Math.min(n, 10), warmThreads, index, true, 'w');
  child.send({ type: 'lag-start' });
  const threads: string[] = [];
  const created = await phase(platform, llm, n, threads, 0, sequential);
  const followed = await phase(platform, llm, n, threads, 1, sequential);
  const { stats } = await child.ask<{ stats: BotStats }>({ type: 'stats' }, 'stats');
  await child.stop();
  // A bot point belongs to the message sent last before it: only one message at a time can be traced.
  if (stats.trace === undefined || !sequential) return { phases: [created, followed], stats };
  const windows = assembleTrace(stats.trace, [...created.messages, ...followed.messages]);
  return { phases: [created, followed], stats, trace: { summary: summarizeTrace(windows), windows } };
}

export interface RowLayout {
  labelWidth: number;
  lagWidth: number;
}

/** Prints one bot's table row (medians over rounds of p50 / p95, lag, memory); returns its p50 medians. */
export function row(
  layout: RowLayout,
  size: string,
  label: string,
  bot: Bot,
  results: RoundResult[],
  index: 0 | 1,
): { first: number; final: number } {
  const each = (pick: (r: RoundResult) => number): number => median(results.map(pick));
  const first = each((r) => pct(r.phases[index].firstMs, 50));
  const final = each((r) => pct(r.phases[index].finalMs, 50));
  console.log(
    `${size.padEnd(5)} | ${label.padEnd(layout.labelWidth)} | ${bot.padEnd(9)} | ${`${fmt(first)} / ${fmt(each((r) => pct(r.phases[index].firstMs, 95)))}`.padEnd(19)} | ` +
      `${`${fmt(final)} / ${fmt(each((r) => pct(r.phases[index].finalMs, 95)))}`.padEnd(19)} | ${`${fmt(each((r) => r.stats.lagP99Ms))} / ${fmt(each((r) => r.stats.lagMaxMs))}`.padEnd(layout.lagWidth)} | ` +
      `${fmt(each((r) => r.stats.rssMb)).padEnd(6)} | ${fmt(each((r) => r.stats.heapMb))}`,
  );
  return { first, final };
}

/** Both bots' rows for new and existing threads, each followed by `compare`'s line (Sandpiper against bare). */
export function printSize(
  layout: RowLayout,
  size: string,
  prefix: string,
  results: Record<Bot, RoundResult[]>,
  compare: (label: string, ours: { first: number; final: number }, bare: { first: number; final: number }) => string,
): void {
  for (const [index, conversation] of [
    [0, 'new thread'],
    [1, 'existing thread'],
  ] as const) {
    const label = `${prefix}${conversation}`;
    const bare = row(layout, size, label, 'bare', results.bare, index);
    const ours = row(layout, size, label, 'sandpiper', results.sandpiper, index);
    console.log(compare(label, ours, bare));
  }
  console.log(cpuLine(size, results));
}

/** CPU per two-turn conversation (a new thread and its follow-up), medians over rounds, both bots and their ratio. */
function cpuLine(size: string, results: Record<Bot, RoundResult[]>): string {
  const perConversation = (bot: Bot): number =>
    median(results[bot].map((r) => r.stats.cpuMs / Math.max(1, r.phases[0].finalMs.length)));
  const bare = perConversation('bare');
  const ours = perConversation('sandpiper');
  return `${size.padEnd(5)} | CPU per conversation (new thread + follow-up): bare ${fmt(bare)} ms, sandpiper ${fmt(ours)} ms (${(ours / bare).toFixed(2)}×)`;
}
