#!/usr/bin/env node
// Runs chosen test files N times and reports, per file, how often it failed and its wall times (min / median / max).
//
//   node scripts/flaky.mjs [-n 10] [--long] test/integration/a.test.ts [more files]
//   npm run test:flaky -- -n 5 test/integration/discord.shards.test.ts
//
// Each round runs the files through scripts/run-tests.mjs (compiled once, two files at a time unless
// SANDPIPER_TEST_CONCURRENCY says otherwise); --long sets SANDPIPER_TEST_LONG=1 (the long fault and crash rounds).
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
let rounds = 10;
let long = false;
const files = [];
for (let index = 0; index < args.length; index += 1) {
  const arg = args[index];
  if (arg === '-n') rounds = Number(args[++index]);
  else if (arg === '--long') long = true;
  else files.push(arg);
}
if (files.length === 0 || !Number.isInteger(rounds) || rounds < 1) {
  console.error('usage: node scripts/flaky.mjs [-n rounds] [--long] <test files>');
  process.exit(2);
}

mkdirSync(path.join(root, '.test-build'), { recursive: true });
const dir = mkdtempSync(path.join(tmpdir(), 'sandpiper-flaky-'));
const build = mkdtempSync(path.join(root, '.test-build', 'flaky-'));
const results = new Map(
  files.map((file) => [path.relative(root, path.resolve(file)), { runs: 0, failed: 0, unfinished: 0, walls: [] }]),
);
for (let round = 1; round <= rounds; round += 1) {
  const times = path.join(dir, `round-${round}.jsonl`);
  const env = {
    ...process.env,
    SANDPIPER_TEST_TIMES: times,
    SANDPIPER_TEST_BUILD_DIR: build,
    SANDPIPER_TEST_REUSE_BUILD: round === 1 ? '0' : '1',
    ...(long ? { SANDPIPER_TEST_LONG: '1' } : {}),
  };
  const run = spawnSync(process.execPath, [path.join(root, 'scripts', 'run-tests.mjs'), ...files], {
    cwd: root,
    env,
    encoding: 'utf8',
  });
  const rows = existsSync(times)
    ? readFileSync(times, 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line))
    : [];
  // A file that ran alone is named by its process's compiled path; a grouped file's own line names its source.
  const sourceOf = (row) => (row.kind === 'file' ? row.file : path.relative(build, row.file).replace(/\.js$/, '.ts'));
  for (const row of rows) {
    const name = sourceOf(row);
    const entry = results.get(name);
    if (!entry) continue;
    entry.runs += 1;
    entry.walls.push(row.wallMs);
    if (row.code !== 0) entry.failed += 1;
  }
  // A file without a row never finished: it hung past the test time-out or its process died. That is a failure too.
  const recorded = new Set(rows.map(sourceOf));
  const missing = [...results.keys()].filter((file) => !recorded.has(file));
  for (const file of missing) {
    const entry = results.get(file);
    entry.runs += 1;
    entry.failed += 1;
    entry.unfinished += 1;
  }
  const failing = rows.filter((row) => results.has(sourceOf(row)) && row.code !== 0).length + missing.length;
  const unfinished = missing.length > 0 ? ` (${missing.length} did not finish: ${missing.join(', ')})` : '';
  console.log(`round ${round}/${rounds}: exit ${run.status}, ${failing} file(s) failed${unfinished}`);
  if (run.status !== 0)
    console.log(
      run.stdout
        .split('\n')
        .filter((line) => /^\s*✖|not ok|open handles|Error/.test(line))
        .slice(0, 20)
        .join('\n'),
    );
}
rmSync(dir, { recursive: true, force: true });
rmSync(build, { recursive: true, force: true });

const seconds = (ms) => (ms / 1000).toFixed(1);
console.log('\nfailed/runs  wall s min / median / max  file');
for (const [file, { runs, failed, unfinished, walls }] of results) {
  const sorted = [...walls].sort((a, b) => a - b);
  const median = sorted[Math.floor(sorted.length / 2)] ?? 0;
  const hung = unfinished > 0 ? ` (${unfinished} did not finish)` : '';
  console.log(
    `${`${failed}/${runs}`.padStart(11)}  ${seconds(sorted[0] ?? 0)} / ${seconds(median)} / ${seconds(sorted.at(-1) ?? 0)}  ${file}${hung}`,
  );
}
process.exit([...results.values()].some((entry) => entry.failed > 0 || entry.runs < rounds) ? 1 : 0);
