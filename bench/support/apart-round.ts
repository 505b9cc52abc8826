/**
 * `bench:discord --apart`: one round with the fake Discord and its driver (discord-driver-process.ts) and the fake LLM
 * (llm-process.ts) each in its own process, next to the bot's: no process measures while it also serves the load, and
 * every timestamp is CLOCK_MONOTONIC (mono-clock.ts). The same phases and figures as measureRound.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnBot, type Bot } from './bench-run.js';
import type { BotLaunch } from './bot-launch.js';
import type { BotStats } from './bot-stats.js';
import { phaseResult, type DrivenPhase, type RoundResult } from './latency-rounds.js';

type Entries = Array<[string, number]>;

export interface ApartFakes {
  apiUrl: string;
  token: string;
  llmUrl: string;
  dir: string;
}

export async function measureApartRound(
  bot: Bot,
  n: number,
  sequential: boolean,
  script: string,
  launchOf: (fakes: ApartFakes) => Promise<BotLaunch>,
): Promise<RoundResult> {
  const dir = mkdtempSync(join(tmpdir(), 'sandpiper-bench-apart-'));
  const [driver, llm] = await Promise.all([
    spawnBot('discord-driver-process.ts', {}, 'fake discord'),
    spawnBot('llm-process.ts', {}, 'fake llm'),
  ]);
  try {
    const { apiUrl, token } = driver.ready as unknown as { apiUrl: string; token: string };
    const child = await spawnBot(
      script,
      await launchOf({ apiUrl, token, llmUrl: llm.ready.url ?? '', dir }),
      `${bot} bot`,
    );
    const run = async (users: number, index: 0 | 1, inTurn: boolean, tag: string): Promise<DrivenPhase> => {
      const done = await driver.ask<{ sentAt: Entries; finalAt: Entries }>(
        { type: 'phase', users, index, sequential: inTurn, tag },
        'phase-done',
      );
      return { sentAt: new Map(done.sentAt), finalAt: new Map(done.finalAt) };
    };
    // Warm-up (not measured), as in measureRound.
    for (const index of [0, 1] as const) await run(Math.min(n, 10), index, true, 'w');
    child.send({ type: 'lag-start' });
    const created = await run(n, 0, sequential, '');
    const followed = await run(n, 1, sequential, '');
    const { stats } = await child.ask<{ stats: BotStats }>({ type: 'stats' }, 'stats');
    await child.stop();
    const times = await llm.ask<{ requestAt: Entries; lastTokenAt: Entries }>({ type: 'times' }, 'times');
    const llmTimes = { requestAt: new Map(times.requestAt), lastTokenAt: new Map(times.lastTokenAt) };
    return { phases: [phaseResult(created, llmTimes, 0), phaseResult(followed, llmTimes, 1)], stats };
  } finally {
    await Promise.all([driver.stop(), llm.stop()]);
    rmSync(dir, { recursive: true, force: true });
  }
}
