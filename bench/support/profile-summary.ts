/**
 * Summarises V8 CPU profiles (`node --cpu-prof`, written by the benches' `--profile=<dir>`): self time per function
 * and per package/folder, so a hot-path regression can be found without a profiler UI.
 *
 *   node --import tsx bench/support/profile-summary.ts <dir-or-file.cpuprofile> [--top=30] [--from=8]
 *
 * `--from=<s>` skips the first seconds of each profile (start-up), so what is left is the steady state.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

const option = (name: string, fallback: string): string => process.argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3) ?? fallback;
const top = Number(option('top', '30'));
const fromMicros = Number(option('from', '0')) * 1e6;
const target = process.argv.slice(2).find((a) => !a.startsWith('--')) ?? '.';
const files = statSync(target).isDirectory()
  ? readdirSync(target).filter((name) => name.endsWith('.cpuprofile')).map((name) => join(target, name))
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

const byFunction = new Map<string, number>();
const byBucket = new Map<string, number>();
let total = 0;
let idle = 0;
for (const file of files) {
  const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile;
  const nodes = new Map(profile.nodes.map((node) => [node.id, node]));
  let elapsed = 0;
  profile.samples.forEach((id, index) => {
    const node = nodes.get(id);
    const micros = profile.timeDeltas[index] ?? 0;
    elapsed += micros;
    if (node === undefined || elapsed < fromMicros) return;
    const { functionName, url, lineNumber } = node.callFrame;
    if (functionName === '(idle)' || functionName === '(program)') {
      idle += micros;
      return;
    }
    total += micros;
    const name = `${functionName || '(anonymous)'} ${url.replace(/^.*\/(node_modules|src|bench|test)\//, '$1/')}:${lineNumber + 1}`;
    byFunction.set(name, (byFunction.get(name) ?? 0) + micros);
    const bucket = functionName === '(garbage collector)' ? '(garbage collector)' : bucketOf(url);
    byBucket.set(bucket, (byBucket.get(bucket) ?? 0) + micros);
  });
}

const print = (title: string, table: Map<string, number>): void => {
  console.log(`\n${title}`);
  for (const [name, micros] of [...table].sort((a, b) => b[1] - a[1]).slice(0, top)) {
    console.log(`${(micros / 1000).toFixed(1).padStart(9)} ms ${((100 * micros) / total).toFixed(1).padStart(5)} %  ${name}`);
  }
};
console.log(`${files.length} profile(s): ${(total / 1000).toFixed(0)} ms busy, ${(idle / 1000).toFixed(0)} ms idle/program`);
print('self time by package / folder', byBucket);
print('self time by function', byFunction);
