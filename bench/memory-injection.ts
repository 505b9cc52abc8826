/**
 * Memory injection cost per model call with 10,000 stored memories: the system-message section (count query,
 * candidate query, BM25 over the candidates) against realistic three-message contexts, on SQLite. Interleaved
 * rounds with a baseline that runs the same section on an empty memory table (same queries, nothing to rank).
 */
import { createMemorySection } from '../src/agent/memory/memory-section.js';
import type { SystemPromptSection } from '../src/agent/system-prompt.js';
import type { Stores } from '../src/storage/index.js';
import { createTestStores } from '../test/helpers/test-stores.js';

const MEMORIES = 10_000;
const ROUNDS = 7;
const CALLS_PER_ROUND = 40;

/** A deterministic vocabulary and word picker (no Math.random: runs are comparable). */
function words(): (count: number, seed: number) => string {
  const syllables = ['ka', 'lo', 'mi', 'ra', 'te', 'su', 'no', 'vi', 'de', 'po', 'ar', 'en', 'ul', 'is', 'om'];
  const vocabulary: string[] = [];
  // 13,500 words; picks are skewed (squared uniform) so a few hundred words are common, as in prose.
  for (const a of syllables)
    for (const b of syllables)
      for (const c of syllables) for (const d of ['', 'n', 'ta', 'ro']) vocabulary.push(`${a}${b}${c}${d}`);
  return (count, seed) => {
    const out: string[] = [];
    let x = seed * 2654435761;
    for (let i = 0; i < count; i++) {
      x = (x * 1103515245 + 12345) % 2147483648;
      // Skewed towards the start of the vocabulary, like real word frequencies.
      out.push(vocabulary[Math.floor((x / 2147483648) ** 2 * vocabulary.length)] as string);
    }
    return out.join(' ');
  };
}

async function fill(
  stores: Stores,
  wsId: string,
  userId: string,
  pick: (count: number, seed: number) => string,
): Promise<void> {
  const scopes = [
    { scope: 'global' as const, scopeId: '' },
    { scope: 'user' as const, scopeId: userId },
    { scope: 'workstream' as const, scopeId: wsId },
  ];
  const rows = Array.from({ length: MEMORIES }, (_, i) => ({ i, where: scopes[i % 3] as (typeof scopes)[number] }));
  // The store's create() one row at a time, a few in flight: the same inserts (and index triggers) as the tool.
  for (let start = 0; start < rows.length; start += 50) {
    await Promise.all(
      rows.slice(start, start + 50).map(({ i, where }) =>
        stores.memories.create({
          name: `note_${i}`,
          description: pick(6, i + 1),
          type: 'project',
          ...where,
          content: pick(40, i + 100_000),
        }),
      ),
    );
  }
}

async function timeCalls(
  section: SystemPromptSection,
  wsId: string,
  userId: string,
  pick: (count: number, seed: number) => string,
  round: number,
): Promise<number[]> {
  const signal = new AbortController().signal;
  const times: number[] = [];
  for (let call = 0; call < CALLS_PER_ROUND; call++) {
    const seed = round * 1000 + call;
    const recentUserTexts = [pick(15, seed + 7), pick(15, seed + 8), pick(15, seed + 9)];
    const start = performance.now();
    await section({
      wsId,
      ownerUserId: userId,
      cwd: '/',
      lastUserText: recentUserTexts[0] ?? '',
      recentUserTexts,
      signal,
    });
    times.push(performance.now() - start);
  }
  return times;
}

const median = (values: readonly number[]): number =>
  [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;
const p95 = (values: readonly number[]): number =>
  [...values].sort((a, b) => a - b)[Math.floor(values.length * 0.95)] ?? 0;

/** Prints the per-call cost of memory injection with 10,000 stored memories (and the empty-table baseline). */
export async function benchMemoryInjection(): Promise<void> {
  const [full, empty] = await Promise.all([createTestStores(), createTestStores()]);
  try {
    const pick = words();
    const wsId = 'bench-ws';
    const userId = 'bench-user';
    await fill(full.stores, wsId, userId, pick);
    const options = { relevanceK: 5, fetchLimit: 50 };
    const withMemories = createMemorySection({ memories: full.stores.memories, ...options });
    const baseline = createMemorySection({ memories: empty.stores.memories, ...options });
    await timeCalls(withMemories, wsId, userId, pick, 99);
    const measured: number[] = [];
    const base: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      measured.push(...(await timeCalls(withMemories, wsId, userId, pick, round)));
      base.push(...(await timeCalls(baseline, wsId, userId, pick, round)));
    }
    console.log(
      `memory injection per model call, ${MEMORIES} stored memories (SQLite, top 5 of ≤ 50 candidates, ${ROUNDS}×${CALLS_PER_ROUND} calls, interleaved):`,
    );
    console.log(`  median ${median(measured).toFixed(2)} ms  p95 ${p95(measured).toFixed(2)} ms`);
    console.log(
      `  baseline (same queries, empty memory table): median ${median(base).toFixed(2)} ms  p95 ${p95(base).toFixed(2)} ms`,
    );
  } finally {
    await Promise.all([full.close(), empty.close()]);
  }
}
