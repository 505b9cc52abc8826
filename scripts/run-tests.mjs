#!/usr/bin/env node
// Runs the test suite (or the test files named) as plain JavaScript. It brings dist/ up to date (tests that start
// the bin run it), compiles src/, test/ and migrations/ in one esbuild pass into a fresh folder under .test-build/
// (about a second, with source maps), and runs the compiled files with node --test, so no test process loads tsx or
// transpiles anew; the files that took longest last run start first. Files that run in-process share processes in
// groups (scripts/test-groups.mjs, test/setup/test-group.ts): the modules they load are loaded once. Every test process imports
// test/setup/open-handles.ts, which fails a file that leaves a handle open (there is no --test-force-exit), and
// test/setup/file-times.ts, which records the file's wall and CPU time: the closing lines list the slowest files.
//
//   node scripts/run-tests.mjs                      the whole suite (src/**/*.test.ts and test/**/*.test.ts)
//   node scripts/run-tests.mjs test/a.test.ts ...   chosen files (paths of the .ts sources)
//   SANDPIPER_TEST_CONCURRENCY=1                   processes run at once (default 4: they partly wait, see docs/design/testing.md)
//   SANDPIPER_TEST_GROUPS=0                        every file in a process of its own (default: in-process files share
//                                                  processes in groups, scripts/test-groups.mjs)
//   SANDPIPER_TEST_NO_BUILD=1                      skip `scripts/build.js --if-stale` (tests that start the bin then run
//                                                  the sources through tsx when dist/ is older than them: slower)
//   SANDPIPER_TEST_LONG=1                          fault and crash tests run their long round counts
//   SANDPIPER_TEST_TIMEOUT_MS=<ms>                 one test file's limit (default 240000): a hung file fails, naming itself
//   SANDPIPER_SLOWEST=<n>                          how many of the slowest files to list (default 10)
//   SANDPIPER_TEST_TIMES=<file>                    keep the per-file times (JSON lines) in that file
//   SANDPIPER_TEST_BUILD_DIR=<dir>                 compile into <dir> and keep it (default: a fresh folder per run)
//   SANDPIPER_TEST_REUSE_BUILD=1                   run that folder as it is (scripts/flaky.mjs compiles once)
import { spawn, spawnSync } from 'node:child_process';
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { planGroups, writeGroups } from './test-groups.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
// Each run compiles into its own folder under .test-build/ (removed at the end), so runs side by side never see
// each other's half-written output; SANDPIPER_TEST_BUILD_DIR names a folder to keep and reuse (scripts/flaky.mjs).
const kept = process.env.SANDPIPER_TEST_BUILD_DIR;
mkdirSync(path.join(root, '.test-build'), { recursive: true });
const LAST_TIMES = path.join(root, '.test-build', 'last-times.json');
const out = kept ? path.resolve(kept) : mkdtempSync(path.join(root, '.test-build', 'run-'));

/** Tracked and new (not ignored) files under the given folders, relative to the root. */
function sourceFiles(folders) {
  const listed = spawnSync('git', ['ls-files', '--cached', '--others', '--exclude-standard', '--', ...folders], {
    cwd: root,
    encoding: 'utf8',
  });
  if (listed.status !== 0) throw new Error(`git ls-files failed: ${listed.stderr}`);
  return listed.stdout.split('\n').filter((file) => file !== '' && existsSync(path.join(root, file)));
}

async function compile() {
  const started = Date.now();
  rmSync(out, { recursive: true, force: true });
  const files = sourceFiles(['src', 'test', 'migrations']);
  const entryPoints = files
    .filter((file) => file.endsWith('.ts') && !file.startsWith('test/fixtures/'))
    .map((file) => path.join(root, file));
  await build({
    entryPoints,
    outdir: out,
    outbase: root,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    sourcemap: 'linked',
    logLevel: 'warning',
  });
  // What tests read next to their own file: the fakes' .mjs servers; fixtures stay where they are (a link).
  for (const file of files.filter(
    (name) => name.startsWith('test/') && /\.(mjs|cjs|js|json)$/.test(name) && !name.startsWith('test/fixtures/'),
  )) {
    mkdirSync(path.dirname(path.join(out, file)), { recursive: true });
    cpSync(path.join(root, file), path.join(out, file));
  }
  symlinkSync(path.join(root, 'test', 'fixtures'), path.join(out, 'test', 'fixtures'), 'dir');
  process.stderr.write(
    `compiled ${entryPoints.length} files into ${path.relative(root, out)}/ in ${Date.now() - started} ms\n`,
  );
}

/** Every *.test.ts under src/ and test/ (as bash globstar would list them). */
function allTestFiles() {
  const found = [];
  const walk = (folder) => {
    for (const entry of readdirSync(path.join(root, folder), { withFileTypes: true })) {
      const relative = path.join(folder, entry.name);
      if (entry.isDirectory()) walk(relative);
      else if (entry.name.endsWith('.test.ts')) found.push(relative);
    }
  };
  walk('src');
  walk('test');
  return found.sort();
}

/** The .ts source of a compiled test file. */
const sourceOf = (file) => path.relative(out, file).replace(/\.js$/, '.ts');
const compiled = (file) => path.join(out, path.relative(root, path.resolve(file)).replace(/\.ts$/, '.js'));

// Tests that start the real bin (CLI, signals, crash, cluster) run dist/ when it is current, else the sources through
// tsx, which costs each start about a second: bring dist/ up to date first, as `npm ci` does in CI (a no-op there).
if (process.env.SANDPIPER_TEST_NO_BUILD !== '1') {
  const built = spawnSync(process.execPath, [path.join(root, 'scripts', 'build.js'), '--if-stale'], {
    cwd: root,
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  if (built.status !== 0) process.exit(built.status ?? 1);
}
if (process.env.SANDPIPER_TEST_REUSE_BUILD !== '1' || !existsSync(path.join(out, 'test'))) await compile();
const requested = process.argv.slice(2);
const sources = (requested.length > 0 ? requested : allTestFiles()).map((file) =>
  path.relative(root, path.resolve(file)),
);
const weight = weigher();
// SANDPIPER_TEST_GROUPS=0 runs every file in a process of its own (scripts/test-groups.mjs says who shares one).
const files =
  process.env.SANDPIPER_TEST_GROUPS === '0'
    ? [...sources].sort((a, b) => weight(b) - weight(a)).map(compiled)
    : writeGroups(out, planGroups(root, sources, weight), weight, compiled);
const timesDir = mkdtempSync(path.join(tmpdir(), 'sandpiper-test-times-'));
const times = process.env.SANDPIPER_TEST_TIMES ?? path.join(timesDir, 'times.jsonl');
const args = [
  '--enable-source-maps',
  '--import',
  path.join(out, 'test', 'setup', 'open-handles.js'),
  '--import',
  path.join(out, 'test', 'setup', 'file-times.js'),
  '--test',
  `--test-concurrency=${process.env.SANDPIPER_TEST_CONCURRENCY ?? 4}`,
  // A file that hangs fails after this long, naming itself, instead of holding the run until CI's own limit. node --test
  // applies it to each file's process as a whole (and to every test in it): the package test installs the package and
  // builds the SQLite driver, which takes minutes on a loaded machine, so the limit is not much below CI's.
  `--test-timeout=${process.env.SANDPIPER_TEST_TIMEOUT_MS ?? 240_000}`,
  '--test-reporter=spec',
  ...files,
];
const started = Date.now();
const child = spawn(process.execPath, args, {
  cwd: root,
  stdio: 'inherit',
  env: { ...process.env, SANDPIPER_TEST_TIMES: times },
});
child.on('exit', (code, signal) => {
  printSlowest(times, Number(process.env.SANDPIPER_SLOWEST ?? 10), Date.now() - started);
  rememberTimes(times);
  rmSync(timesDir, { recursive: true, force: true });
  if (!kept) rmSync(out, { recursive: true, force: true });
  process.exit(code ?? (signal ? 1 : 0));
});

/**
 * A source file's expected wall time in ms: the last run's (.test-build/last-times.json), so the files that took
 * longest start first and no long file is left running alone at the end; without that record (a fresh clone, as in
 * CI), a guess: the package test (packs, installs, builds the SQLite driver: over a minute) first, then the process
 * tests (crash, cluster), then the other integration tests, then the rest.
 */
function weigher() {
  let last = {};
  try {
    last = JSON.parse(readFileSync(LAST_TIMES, 'utf8'));
  } catch {
    last = {};
  }
  const guess = (file) =>
    file.endsWith('package-install.test.ts')
      ? 100_000
      : /\/(crash|cluster)\./.test(file)
        ? 30_000
        : file.startsWith('test/integration/')
          ? 3_000
          : 300;
  // A local run skips the package test (SANDPIPER_TEST_PACKAGE unset) and records it as short: when it runs, it goes first.
  const packaging = process.env.SANDPIPER_TEST_PACKAGE === '1';
  return (file) => (packaging && file.endsWith('package-install.test.ts') ? guess(file) : (last[file] ?? guess(file)));
}

/** Merges this run's wall times into .test-build/last-times.json. */
function rememberTimes(file) {
  if (!existsSync(file)) return;
  let last = {};
  try {
    last = JSON.parse(readFileSync(LAST_TIMES, 'utf8'));
  } catch {
    last = {};
  }
  for (const row of fileRows(readRows(file))) last[row.source] = row.wallMs;
  writeFileSync(LAST_TIMES, JSON.stringify(last, null, 1));
}

/** The JSON lines of a times file (test/setup/file-times.ts). */
function readRows(file) {
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line));
}

const isGroup = (row) => row.kind === 'process' && row.file.includes(`${path.sep}test-groups${path.sep}`);

/** One row per test file, named by its source: a lone file's process, or a grouped file's own line. */
function fileRows(rows) {
  return rows
    .filter((row) => !isGroup(row))
    .map((row) => ({ ...row, source: row.kind === 'file' ? row.file : sourceOf(row.file) }));
}

/**
 * The slowest test files by wall time (a lone file: process start to exit; a grouped file: its first hook to its
 * last), with their CPU time (their own, plus the child processes they waited for), and the whole run's CPU use (the
 * processes', group start-up included) against the time the cores had: how busy the run kept them.
 */
function printSlowest(file, count, totalMs) {
  if (!existsSync(file)) return;
  const rows = readRows(file);
  const files = fileRows(rows).sort((a, b) => b.wallMs - a.wallMs);
  const processes = rows.filter((row) => row.kind === 'process');
  const seconds = (ms) => (ms / 1000).toFixed(1).padStart(6);
  const cpu = (row) => row.cpuMs + (row.childCpuMs ?? 0);
  const lines = files.slice(0, count).map((row) => `${seconds(row.wallMs)} ${seconds(cpu(row))}  ${row.source}`);
  const wallSum = processes.reduce((sum, row) => sum + row.wallMs, 0);
  const cpuSum = processes.reduce((sum, row) => sum + cpu(row), 0);
  const cores = availableParallelism();
  const groups = processes.filter(isGroup).length;
  const busy = `${processes.length} processes (${groups} groups), wall ${(wallSum / 1000).toFixed(0)} s, CPU ${(cpuSum / 1000).toFixed(0)} s = ${((100 * cpuSum) / (totalMs * cores)).toFixed(0)}% of ${cores} cores`;
  process.stdout.write(
    `\nslowest ${Math.min(count, files.length)} of ${files.length} test files (wall s, CPU s with children); whole run ${seconds(totalMs).trim()} s; ${busy}:\n${lines.join('\n')}\n`,
  );
}
