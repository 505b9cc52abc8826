#!/usr/bin/env node
// Runs the test suite (or the test files named) as plain JavaScript. It brings dist/ up to date (tests that start
// the bin run it), compiles src/, test/ and migrations/ in one esbuild pass into a fresh folder under .test-build/
// (about a second, with source maps), and runs the compiled files with node --test, so no test process loads tsx or
// transpiles anew; the files that took longest last run start first. Every test process imports
// test/setup/open-handles.ts, which fails a file that leaves a handle open (there is no --test-force-exit), and
// test/setup/file-times.ts, which records the file's wall and CPU time: the closing lines list the slowest files.
//
//   node scripts/run-tests.mjs                      the whole suite (src/**/*.test.ts and test/**/*.test.ts)
//   node scripts/run-tests.mjs test/a.test.ts ...   chosen files (paths of the .ts sources)
//   SANDPIPER_TEST_CONCURRENCY=1                   files run at once (default 3: the files mostly wait, see docs/design/testing.md)
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
const files = heaviestFirst(requested.length > 0 ? requested : allTestFiles()).map(compiled);
const timesDir = mkdtempSync(path.join(tmpdir(), 'sandpiper-test-times-'));
const times = process.env.SANDPIPER_TEST_TIMES ?? path.join(timesDir, 'times.jsonl');
const args = [
  '--enable-source-maps',
  '--import',
  path.join(out, 'test', 'setup', 'open-handles.js'),
  '--import',
  path.join(out, 'test', 'setup', 'file-times.js'),
  '--test',
  `--test-concurrency=${process.env.SANDPIPER_TEST_CONCURRENCY ?? 3}`,
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
 * The files that took longest last time start first, so no long file is left running alone at the end (the
 * previous run's times are kept in .test-build/last-times.json); without that record, integration tests first.
 */
function heaviestFirst(sources) {
  let last = {};
  try {
    last = JSON.parse(readFileSync(LAST_TIMES, 'utf8'));
  } catch {
    last = {};
  }
  // Without a record (a fresh clone, as in CI): the package test (packs, installs, builds the SQLite driver: over a
  // minute) first, then the process tests (crash, cluster), then the other integration tests, then the rest.
  const guess = (file) =>
    file.endsWith('package-install.test.ts')
      ? 100_000
      : /\/(crash|cluster)\./.test(file)
        ? 30_000
        : file.startsWith('test/integration/')
          ? 5_000
          : 500;
  const weight = (file) => last[file] ?? guess(file);
  return [...sources].sort((a, b) => weight(b) - weight(a));
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
  for (const line of readFileSync(file, 'utf8').split('\n').filter(Boolean)) {
    const row = JSON.parse(line);
    last[sourceOf(row.file)] = row.wallMs;
  }
  writeFileSync(LAST_TIMES, JSON.stringify(last, null, 1));
}

/**
 * The slowest test files by wall time (process start to exit), with their CPU time (their own, plus the child
 * processes they waited for), and the whole run's CPU use against the time the cores had: how busy the run kept them.
 */
function printSlowest(file, count, totalMs) {
  if (!existsSync(file)) return;
  const rows = readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line));
  rows.sort((a, b) => b.wallMs - a.wallMs);
  const seconds = (ms) => (ms / 1000).toFixed(1).padStart(6);
  const cpu = (row) => row.cpuMs + (row.childCpuMs ?? 0);
  const lines = rows.slice(0, count).map((row) => `${seconds(row.wallMs)} ${seconds(cpu(row))}  ${sourceOf(row.file)}`);
  const wallSum = rows.reduce((sum, row) => sum + row.wallMs, 0);
  const cpuSum = rows.reduce((sum, row) => sum + cpu(row), 0);
  const cores = availableParallelism();
  const busy = `files' wall ${(wallSum / 1000).toFixed(0)} s, CPU ${(cpuSum / 1000).toFixed(0)} s = ${((100 * cpuSum) / (totalMs * cores)).toFixed(0)}% of ${cores} cores`;
  process.stdout.write(
    `\nslowest ${Math.min(count, rows.length)} of ${rows.length} test files (wall s, CPU s with children); whole run ${seconds(totalMs).trim()} s; ${busy}:\n${lines.join('\n')}\n`,
  );
}
