/**
 * CPU per hot-path write on SQLite (ADR 0029): the same transaction of a turn's writes (a history INSERT … RETURNING,
 * a workstream UPDATE, a journal DELETE + INSERT) through `knex.transaction` with awaited builders, and through the
 * write engine's `BatchRunner` (on a file, one script on SQLite's write connection: ADR 0056; the INSERT … RETURNING
 * is read back on the same connection). Same file, same rows, interleaved rounds, medians of µs of CPU per transaction
 * and per statement.
 *
 *   node --import tsx bench/statement-cost.ts [--rounds=5] [--batches=400]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Knex } from 'knex';
import { BatchRunner, type BatchDb } from '../src/storage/batch-db.js';
import { createKnex, runMigrations } from '../src/storage/index.js';
import { arg } from './support/bench-run.js';

const rounds = Number(arg('rounds', '5'));
const batches = Number(arg('batches', '400'));
const STATEMENTS = 4;

const dir = mkdtempSync(join(tmpdir(), 'sp-statements-'));
const knex = createKnex(`sqlite:${join(dir, 'bench.db')}`);
await runMigrations(knex);
await knex('users').insert({ user_id: 'u1', username: 'bench', is_admin: 0, created: '2026-01-01T00:00:00Z' });
await knex('workstreams').insert({
  ws_id: 'w1',
  user_id: 'u1',
  name: 'bench',
  model_alias: 'm',
  state: 'idle',
  title: '',
  node_id: '',
  created: '2026-01-01T00:00:00Z',
  updated: '2026-01-01T00:00:00Z',
  input_tokens: 0,
  output_tokens: 0,
  auto_approve_tools: '[]',
});

/** One turn's writes, built on `db` (knex or a transaction) and run by `run`. */
async function turnWrites(
  table: (name: string) => Knex.QueryBuilder,
  run: (statement: Knex.QueryBuilder) => Promise<unknown>,
  n: number,
): Promise<void> {
  const now = new Date().toISOString();
  await run(
    table('conversations')
      .insert({ ws_id: 'w1', role: 'user', content: `message ${n}`, timestamp: now })
      .returning('id'),
  );
  await run(table('workstreams').where({ ws_id: 'w1' }).update({ state: 'thinking', updated: now }));
  await run(table('turn_journal').where({ ws_id: 'w1' }).delete());
  await run(
    table('turn_journal').insert({
      turn_id: `t${n}`,
      ws_id: 'w1',
      resumed: 0,
      partial_text: '',
      settled: 0,
      started: now,
      updated: now,
    }),
  );
}

const runner = new BatchRunner(knex);
const ways: Record<string, (n: number) => Promise<void>> = {
  'knex.transaction': (n) =>
    knex.transaction((trx) =>
      turnWrites(
        (name) => trx(name),
        (statement) => Promise.resolve(statement),
        n,
      ),
    ),
  'write engine (BatchRunner)': (n) =>
    runner.transaction((db: BatchDb) =>
      turnWrites(
        (name) => db.table(name),
        (statement) => db.run(statement),
        n,
      ),
    ),
};

async function measure(way: (n: number) => Promise<void>): Promise<number> {
  const start = process.cpuUsage();
  for (let n = 0; n < batches; n++) await way(n);
  const used = process.cpuUsage(start);
  return (used.user + used.system) / batches;
}

const results: Record<string, number[]> = Object.fromEntries(Object.keys(ways).map((name) => [name, []]));
for (const way of Object.values(ways)) await measure(way); // warm-up
for (let round = 0; round < rounds; round++) {
  const order = round % 2 === 0 ? Object.keys(ways) : Object.keys(ways).reverse();
  for (const name of order) results[name]?.push(await measure(ways[name] as (n: number) => Promise<void>));
}
const median = (values: number[]): number =>
  [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? Number.NaN;
console.log(
  `SQLite, one transaction of ${STATEMENTS} hot-path statements; ${rounds} interleaved rounds of ${batches}; median µs of CPU`,
);
for (const [name, values] of Object.entries(results)) {
  const perBatch = median(values);
  console.log(
    `${name.padEnd(24)} ${perBatch.toFixed(0).padStart(5)} µs per transaction  ${(perBatch / STATEMENTS).toFixed(0).padStart(4)} µs per statement`,
  );
}
await knex.destroy();
rmSync(dir, { recursive: true, force: true });
