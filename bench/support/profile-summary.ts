/**
 * Summarises V8 CPU profiles (`node --cpu-prof`, written by the benches' `--profile=<dir>`): self time per function
 * and per package/folder, so a hot-path regression can be found without a profiler UI.
 *
 *   node --import tsx bench/support/profile-summary.ts <dir-or-file.cpuprofile> [--top=30] [--from=8]
 *
 * `--from=<s>` skips the first seconds of each profile (start-up), so what is left is the steady state.
 * `--window=<kind>|<path>` (say `--window='existing thread|model request'`) keeps only the samples taken on that path,
 * as a `bench:discord --trace --profile` run wrote its points beside each profile (`windows-<pid>.json`): from the
 * path's start to its last request point, or between two named points with `--between='<from>,<to>'`.
 * `--inclusive` adds a table of time per function including what it called (a flat profile spreads the cost of one
 * caller over many small callees; this shows the caller).
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface Profile {
  startTime: number;
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

const option = (name: string, fallback: string): string =>
  process.argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3) ?? fallback;
const top = Number(option('top', '30'));
const fromMicros = Number(option('from', '0')) * 1e6;
const windowName = option('window', '');
const between = option('between', '').split(',').filter(Boolean);
const inclusive = process.argv.includes('--inclusive');
const target = process.argv.slice(2).find((a) => !a.startsWith('--')) ?? '.';
const files = statSync(target).isDirectory()
  ? readdirSync(target)
      .filter((name) => name.endsWith('.cpuprofile'))
      .map((name) => join(target, name))
  : [target];

/** `node_modules/<pkg>` (scoped too), `src/<folder>`, `node:` internals, or the file name. */
function bucketOf(url: string): string {
  const modules = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (modules) return modules[1] as string;
  const ours = /\/(src|bench|test)\/(.*)\/[^/]+$/.exec(url);
  if (ours) return `${ours[1]}/${ours[2]}`;
  if (url.startsWith('node:')) return 'node internals';
  return url === '' ? '(native / gc / idle)' : url.replace(/^.*\//, '');
}

/** `name file:line`, paths from node_modules/ or src/ on. */
function frameName(node: ProfileNode): string {
  const { functionName, url, lineNumber } = node.callFrame;
  return `${functionName || '(anonymous)'} ${url.replace(/^.*\/(node_modules|src|bench|test)\//, '$1/')}:${lineNumber + 1}`;
}

const byFunction = new Map<string, number>();
const byCaller = new Map<string, number>();
const byBucket = new Map<string, number>();
let total = 0;
let idle = 0;
let windowCount = 0;

/** `[from, to]` of one message's traced points: the named pair, else the path's start to its last request point. */
function boundsOf(points: Record<string, number>): [number, number] | undefined {
  const names = Object.keys(points);
  const from = between[0] ?? names[0];
  const to = between[1] ?? names.findLast((name) => /^(undici|edit): /.test(name));
  const bounds = [from === undefined ? undefined : points[from], to === undefined ? undefined : points[to]];
  return bounds[0] === undefined || bounds[1] === undefined ? undefined : (bounds as [number, number]);
}

/** The windows (hrtime µs) the profile's process traced for `--window`, sorted; undefined keeps every sample. */
function windowsOf(file: string): Array<[number, number]> | undefined {
  if (!windowName) return undefined;
  const pid = /^CPU\.\d+\.\d+\.(\d+)\./.exec(file.replace(/^.*\//, ''))?.[1];
  const windowsFile = join(dirname(file), `windows-${pid}.json`);
  if (!existsSync(windowsFile))
    throw new Error(`${windowsFile} is missing: --window needs a bench:discord run with both --trace and --profile`);
  const all = JSON.parse(readFileSync(windowsFile, 'utf8')) as Record<string, Array<Record<string, number>>>;
  const traced = all[windowName];
  if (traced === undefined)
    throw new Error(`no window named ${windowName}; the file has ${Object.keys(all).join(', ')}`);
  const windows = traced.map(boundsOf).filter((bounds) => bounds !== undefined);
  windowCount += windows.length;
  return windows.sort((a, b) => a[0] - b[0]);
}

for (const file of files) {
  const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile;
  const nodes = new Map(profile.nodes.map((node) => [node.id, node]));
  const parents = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parents.set(child, node.id);
  const windows = windowsOf(file);
  let elapsed = 0;
  let at = profile.startTime;
  let next = 0;
  const inWindow = (time: number): boolean => {
    if (windows === undefined) return true;
    while (next < windows.length && (windows[next]?.[1] ?? 0) < time) next++;
    return next < windows.length && (windows[next]?.[0] ?? Infinity) <= time;
  };
  profile.samples.forEach((id, index) => {
    const node = nodes.get(id);
    const micros = profile.timeDeltas[index] ?? 0;
    elapsed += micros;
    at += micros;
    if (node === undefined || elapsed < fromMicros || !inWindow(at)) return;
    const { functionName, url } = node.callFrame;
    if (functionName === '(idle)' || functionName === '(program)') {
      idle += micros;
      return;
    }
    total += micros;
    const name = frameName(node);
    byFunction.set(name, (byFunction.get(name) ?? 0) + micros);
    if (inclusive) {
      // Each function on the sample's stack once (recursion counts once).
      const stack = new Set<string>();
      for (let at: ProfileNode | undefined = node; at !== undefined; at = nodes.get(parents.get(at.id) ?? -1))
        stack.add(frameName(at));
      for (const caller of stack) byCaller.set(caller, (byCaller.get(caller) ?? 0) + micros);
    }
    const bucket = functionName === '(garbage collector)' ? '(garbage collector)' : bucketOf(url);
    byBucket.set(bucket, (byBucket.get(bucket) ?? 0) + micros);
  });
}

const print = (title: string, table: Map<string, number>): void => {
  console.log(`\n${title}`);
  for (const [name, micros] of [...table].sort((a, b) => b[1] - a[1]).slice(0, top)) {
    console.log(
      `${(micros / 1000).toFixed(1).padStart(9)} ms ${((100 * micros) / total).toFixed(1).padStart(5)} %  ${name}`,
    );
  }
};
const scope = windowName ? ` inside ${windowCount} '${windowName}' windows` : '';
console.log(
  `${files.length} profile(s)${scope}: ${(total / 1000).toFixed(1)} ms busy, ${(idle / 1000).toFixed(1)} ms idle/program`,
);
print('self time by package / folder', byBucket);
print('self time by function', byFunction);
if (inclusive) print('time by function, including its callees', byCaller);
